import Dispatch
import Foundation
import Observatory
import ObservatoryEpoll
import ObservatoryLogging
import ObservatorySockets
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One thread serving many connections: it waits on a `Poller`, reads and
/// answers requests, runs timers, and at the end of every turn writes what each
/// connection has queued, one send per socket.
///
/// The server runs one loop per two cores by default (`ServerConfiguration.ioThreads`;
/// `Server.defaultLoopCount` says why). A request is read, answered and its reply
/// written on the loop that owns the connection, with no thread handoff. A change
/// reaches observers on other loops through their outputs; their loop is woken
/// once per turn, however many events it got.
///
/// Before it flushes, a turn runs its `endOfTurn` action: the store writes the
/// changes of the turn to its log in one `write(2)` there (`SharedStore.writeBatch`),
/// so the replies flushed right after can go in the same turn.
///
/// Turns are fair: a connection answers one share of its requests at a time
/// (`ConnectionMachine.TurnShare`) and asks to be resumed (`resume(_:)`). The
/// loop then looks, without waiting, whether another handler is ready: if one
/// is, it is served and the turn ends with its flush; if none is, the next
/// share follows in the same turn, up to a few a turn. So a pipelining client
/// delays another client's request by about one share, and costs one
/// `epoll_wait` a share when it is alone.
///
/// The loop knows its handlers only as `LoopHandler`s (readiness) and
/// `FlushingLoopHandler`s (output written at the end of a turn): connections today,
/// any other transport that keeps that contract tomorrow.
///
/// ## Threads
/// Everything except `execute`, `scheduleFlush` and `stop` is confined to the
/// loop's own thread: registered handlers, timers and the handlers waiting for
/// their end-of-turn flush. Those three are safe from any thread: they hand work over through the
/// `Locked` inbox (a pthread mutex, which the thread sanitizer understands) and
/// wake the loop.
///
/// Its sixteen stored properties are the parts of one epoll loop, each used on
/// every turn: the poller, the handler table and its tokens, the timer heap, the
/// lists of handlers to flush, being flushed and to resume, the end-of-turn
/// action, the inbox, the thread's identity and the read buffer.
final class EventLoop: @unchecked Sendable {
    /// What other threads hand to the loop.
    private struct Inbox {
        var tasks: [@Sendable () -> Void] = []
        var flushes: [any FlushingLoopHandler] = []
        /// The loop has been woken and has not emptied the inbox since.
        var isWakePending = false
        var isStarted = false
        var isStopping = false
    }

    /// The loop's name, for logs and the thread.
    let label: String
    private let poller: Poller
    private let inbox = Locked(Inbox())
    /// The `pthread_self()` of the loop's thread once it runs, else 0.
    private let threadIdentity = Atomic<UInt>(0)
    private let stopped = DispatchSemaphore(value: 0)
    private let logger: Logger
    /// Runs at the end of every turn, before the flushes.
    private let endOfTurn: (@Sendable () -> Void)?

    // Confined to the loop's thread, and never reached by a call that is still
    // using them (handlers are called on copies): unchecked exclusivity spares
    // every turn its runtime checks (callgrind: a tenth of the loop's own work).
    /// Registered handlers by token: a token is a slot, reused once freed, so
    /// a readiness report finds its handler without hashing. A report of the same
    /// wait for a handler unregistered meanwhile reaches the slot's next handler,
    /// if any, as a spurious readiness, which its non-blocking read answers with
    /// "would block".
    @exclusivity(unchecked) private var handlers: [(any LoopHandler)?] = []
    /// Slots of `handlers` free for the next registration.
    @exclusivity(unchecked) private var freeTokens: [Int] = []
    @exclusivity(unchecked) private var timers = TimerHeap<@Sendable () -> Void>()
    /// Handlers with replies to send this turn; flushed before `dirty`. Optional, so
    /// that a flush moves each handler out of its list instead of copying it (a
    /// retain and a release of it fewer, callgrind).
    @exclusivity(unchecked) private var answering: [(any FlushingLoopHandler)?] = []
    @exclusivity(unchecked) private var dirty: [(any FlushingLoopHandler)?] = []
    /// The handlers being flushed: kept between turns, so that no turn allocates a list.
    @exclusivity(unchecked) private var flushing: [(any FlushingLoopHandler)?] = []
    /// Handlers that used up their share, resumed after the other handlers that are ready.
    @exclusivity(unchecked) private var resuming: [any FlushingLoopHandler] = []
    @exclusivity(unchecked) private var isRunning = false

    /// How many shares a handler that pipelines gets in one turn while no other
    /// handler is ready: enough that it pays for a turn's flush and batched
    /// write rarely, few enough that its flush stays short.
    private static let sharesPerTurn = 4

    /// Whether the output of connections not answered this turn waits while a
    /// handler still works through its shares: at most 64 shares (a writer's
    /// window of 64 changes to 1,000 observers, one share each, goes out in one
    /// `send` per observer) or 20 ms of the loop's CPU time.
    @exclusivity(unchecked) private var eventFlushDelay = EventFlushDelay(shares: 64, limit: 20_000_000)
    /// Shares resumed this turn, for `eventFlushDelay`.
    @exclusivity(unchecked) private var sharesResumed = 0

    /// Bytes one read may take; shared by every connection of the loop, since a
    /// connection keeps only what it has not answered.
    let readBuffer: UnsafeMutableRawBufferPointer

    /// Creates the loop; `start()` runs it on a thread of its own.
    ///
    /// - Parameter endOfTurn: runs at the end of every turn, before the flushes
    ///   (the store's batched writes).
    /// - Throws: `SocketError` when the kernel refuses an epoll set or eventfd.
    init(label: String, logger: Logger, endOfTurn: (@Sendable () -> Void)? = nil) throws(SocketError) {
        self.label = label
        self.logger = logger
        self.endOfTurn = endOfTurn
        poller = try Poller()
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Starts the loop's thread.
    func start() {
        inbox.withLock { $0.isStarted = true }
        let thread = Thread { [self] in run() }
        thread.name = label
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Whether the caller runs on this loop's thread.
    var isCurrent: Bool {
        threadIdentity.load(ordering: .relaxed) == UInt(bitPattern: Int(bitPattern: pthread_self()))
    }

    /// Runs `task` on the loop's thread, soon.
    func execute(_ task: @escaping @Sendable () -> Void) {
        let wake = inbox.withLock { inbox -> Bool in
            inbox.tasks.append(task)
            return Self.claimWake(&inbox)
        }
        if wake { poller.wake() }
    }

    /// Has `connection` write what it has queued at the end of this or the next turn.
    func scheduleFlush(of connection: any FlushingLoopHandler) {
        if isCurrent {
            dirty.append(connection)
            return
        }
        let wake = inbox.withLock { inbox -> Bool in
            inbox.flushes.append(connection)
            return Self.claimWake(&inbox)
        }
        if wake { poller.wake() }
    }

    /// Ends the loop after its current turn and waits for its thread to finish;
    /// the descriptors still registered (lingering sockets) are closed.
    func stop() {
        let wasRunning = inbox.withLock { inbox -> Bool in
            inbox.isStopping = true
            return inbox.isStarted
        }
        poller.wake()
        if wasRunning { stopped.wait() }
    }

    private static func claimWake(_ inbox: inout Inbox) -> Bool {
        guard !inbox.isWakePending else { return false }
        inbox.isWakePending = true
        return true
    }

    // MARK: On the loop's thread

    /// Watches `descriptor` for `handler`; returns the token it is reported under.
    func register(_ descriptor: Int32, interest: Poller.Interest, handler: any LoopHandler) throws(SocketError) -> Int {
        let token = freeTokens.last ?? handlers.count
        try poller.add(descriptor, token: token, interest: interest)
        if token == handlers.count {
            handlers.append(handler)
        } else {
            freeTokens.removeLast()
            handlers[token] = handler
        }
        return token
    }

    /// Changes what `descriptor` is watched for.
    func modify(_ descriptor: Int32, token: Int, interest: Poller.Interest) {
        do {
            try poller.modify(descriptor, token: token, interest: interest)
        } catch {
            logger.error("\(label): \(error)")
        }
    }

    /// Stops watching `descriptor`; call before closing it.
    func unregister(_ descriptor: Int32, token: Int) {
        poller.remove(descriptor)
        guard handlers.indices.contains(token), handlers[token] != nil else { return }
        handlers[token] = nil
        freeTokens.append(token)
    }

    /// Runs `action` on the loop at `deadline` (monotonic nanoseconds) or soon after.
    func schedule(at deadline: UInt64, _ action: @escaping @Sendable () -> Void) {
        timers.schedule(action, at: deadline)
    }

    /// Has `connection` flush at the end of this turn (it is on this loop).
    ///
    /// Connections that were answered go first: a writer that has its reply
    /// sooner sends its next request while the loop is still writing the events
    /// of the last one to their observers.
    func markForFlush(_ connection: any FlushingLoopHandler, answered: Bool) {
        if answered {
            answering.append(connection)
        } else {
            dirty.append(connection)
        }
    }

    /// Calls `handler.resume()` soon: in this turn while no other handler is
    /// ready, else in the next one, which then does not wait (it is on this loop).
    func resume(_ handler: any FlushingLoopHandler) {
        resuming.append(handler)
    }

    /// The monotonic clock in nanoseconds, the time base of every deadline (and
    /// of `DispatchTime` on Linux), read without Dispatch's conversions.
    static func now() -> UInt64 {
        nanoseconds(of: CLOCK_MONOTONIC)
    }

    /// The CPU time the calling thread has used, in nanoseconds: how much work
    /// the loop did, which a busy machine does not stretch (a system call, not
    /// the vDSO: read once a turn at most).
    static func threadCPUTime() -> UInt64 {
        nanoseconds(of: CLOCK_THREAD_CPUTIME_ID)
    }

    private static func nanoseconds(of clock: clockid_t) -> UInt64 {
        var time = timespec()
        clock_gettime(clock, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    private func run() {
        threadIdentity.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .relaxed)
        isRunning = true
        while isRunning {
            turn()
        }
        for case let handler? in handlers { handler.loopStopped() }
        handlers = []
        freeTokens = []
        timers.removeAll()
        answering = []
        dirty = []
        resuming = []
        stopped.signal()
    }

    /// One turn: wait for readiness (not at all if there is output or a handler
    /// to resume, else no longer than the next timer), handle it and take the
    /// inbox, give the handlers that used up their share more shares while no
    /// other handler is ready, fire due timers, run the end-of-turn action, then
    /// flush every connection that has output.
    private func turn() {
        do {
            try poller.wait(timeoutMilliseconds: waitTimeout()) { readiness in dispatch(readiness) }
            try resumeWhileAlone()
        } catch {
            logger.error("\(label): \(error)")
        }
        // The clock is read only when a timer may be due.
        if timers.nextDeadline != nil {
            for action in timers.takeDue(at: Self.now()) { action() }
        }
        endOfTurn?()
        flushDirty()
    }

    /// Resumes the handlers that used up their share, one share each, and looks
    /// (without waiting) whether another handler is ready: if one is, it is
    /// handled and the turn ends, so that its replies go out before the next
    /// share; if none is, the next shares follow in this turn, up to
    /// `sharesPerTurn`, so that what they queued is flushed in pieces a
    /// bystander does not wait long behind.
    private func resumeWhileAlone() throws(SocketError) {
        for _ in 0..<Self.sharesPerTurn where isRunning && !resuming.isEmpty {
            // Handlers resumed now may ask again: they stay behind this round's, in order.
            let count = resuming.count
            for index in 0..<count {
                let handler = resuming[index]
                sharesResumed += 1
                handler.resume()
            }
            resuming.removeFirst(count)
            var othersAreReady = false
            try poller.wait(timeoutMilliseconds: 0) { readiness in
                othersAreReady = true
                dispatch(readiness)
            }
            if othersAreReady { return }
        }
    }

    private func dispatch(_ readiness: Poller.Readiness) {
        if readiness.token == Poller.wakeToken {
            takeInbox()
        } else {
            guard handlers.indices.contains(readiness.token), let handler = handlers[readiness.token] else { return }
            handler.handle(readiness)
        }
    }

    private func waitTimeout() -> Int32 {
        guard dirty.isEmpty && answering.isEmpty && resuming.isEmpty else { return 0 }
        guard let deadline = timers.nextDeadline else { return -1 }
        let now = Self.now()
        guard deadline > now else { return 0 }
        return Int32(clamping: (deadline - now + 999_999) / 1_000_000)
    }

    private func takeInbox() {
        let taken = inbox.withLock { inbox -> Inbox in
            let taken = inbox
            inbox.tasks = []
            inbox.flushes = []
            inbox.isWakePending = false
            return taken
        }
        if taken.isStopping { isRunning = false }
        for handler in taken.flushes { dirty.append(handler) }
        for task in taken.tasks { task() }
    }

    private func flushDirty() {
        // Flushing may mark connections again (more frames to answer): they go in
        // the next turn. The three lists trade places and keep their capacity.
        swap(&flushing, &answering)
        flushAll()
        let shares = sharesResumed
        sharesResumed = 0
        guard !dirty.isEmpty,
            eventFlushDelay.writesNow(
                handlersResuming: !resuming.isEmpty, sharesResumed: shares, cpuTime: Self.threadCPUTime)
        else {
            return
        }
        swap(&flushing, &dirty)
        flushAll()
    }

    private func flushAll() {
        for index in flushing.indices {
            guard let connection = flushing[index].take() else { continue }
            connection.flush()
        }
        // Emptied slot by slot, each known to be `nil`: `removeAll` destroyed each
        // through the generic path (callgrind: about 50 instructions a slot).
        while flushing.popLast() != nil {}
    }
}
