import CEpoll
import ObservatorySockets

#if canImport(Glibc)
    import Glibc
#endif

/// One epoll set: which of many descriptors are ready, in one system call, plus
/// an eventfd through which another thread wakes the waiter and a timerfd that
/// wakes it at a deadline.
///
/// epoll rather than `poll(2)`: with thousands of sockets, `poll` makes the
/// kernel look at every one on every wait, while epoll hands back only the
/// ready ones. Interest is level-triggered: a descriptor that still has bytes
/// to read is reported again on the next wait, so a caller may read a bounded
/// amount per turn and stay fair to the others.
///
/// Not thread-safe, except `wake()`: one thread registers, sets the timer and waits.
///
/// Linux only, like the server, the etcd client's loop and the benchmark that use it;
/// the client library waits on its one socket with `SocketWaiter` (`poll(2)`), which
/// runs on Apple platforms too.
public final class Poller {
    /// What one wait found for one registered descriptor.
    public struct Readiness: Sendable, Equatable {
        /// The token the descriptor was registered with.
        public let token: Int
        /// Bytes, end-of-file or an error wait to be read.
        public let readable: Bool
        /// The socket takes more bytes.
        public let writable: Bool
        /// The peer closed its side or the connection failed, also while input is not watched.
        public let hungUp: Bool
    }

    /// Which readiness a descriptor is watched for.
    public struct Interest: OptionSet, Sendable {
        public let rawValue: UInt32

        public init(rawValue: UInt32) {
            self.rawValue = rawValue
        }

        /// Bytes to read (or end-of-file).
        public static let readable = Interest(rawValue: EPOLLIN.rawValue)
        /// Room to write.
        public static let writable = Interest(rawValue: EPOLLOUT.rawValue)
        /// The peer hung up, reported even without `readable`: a connection that
        /// is not read still learns that its client left.
        public static let hangUp = Interest(rawValue: EPOLLRDHUP.rawValue)
    }

    /// The token under which `wake()` and the timer report; registered descriptors use tokens ≥ 0.
    public static let wakeToken = -1
    /// The timerfd's token inside the epoll set; reported as `wakeToken`.
    private static let timerToken = -2

    private let epoll: Int32
    private let wakeDescriptor: Int32
    private let timer: Int32
    /// The kernel's report buffer: a fixed allocation, so that a wait needs no
    /// exclusive access to an array nor a uniqueness check.
    private let events: UnsafeMutableBufferPointer<epoll_event>
    /// The deadline the timer is set to, 0 when it is not set.
    private var timerDeadline: UInt64 = 0

    /// Creates the epoll set, its wake-up eventfd and its timerfd.
    ///
    /// - Parameter batch: the most readiness reports one wait hands back.
    /// - Throws: `SocketError` when the kernel refuses (descriptor limit reached).
    public init(batch: Int = 256) throws(SocketError) {
        // Each failure is captured at once, before the next call can overwrite `errno`.
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        let epollFailure = epoll < 0 ? SocketError.lastError("epoll_create1") : nil
        wakeDescriptor = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        let wakeFailure = wakeDescriptor < 0 ? SocketError.lastError("eventfd") : nil
        timer = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK) | Int32(TFD_CLOEXEC))
        let timerFailure = timer < 0 ? SocketError.lastError("timerfd_create") : nil
        events = .allocate(capacity: max(1, batch))
        events.initialize(repeating: epoll_event())
        // Every stored property is set: from here on a throw runs `deinit`, which
        // closes what was opened (closing it here as well would close it twice).
        if let failure = epollFailure ?? wakeFailure ?? timerFailure { throw failure }
        try control(EPOLL_CTL_ADD, wakeDescriptor, token: Self.wakeToken, interest: .readable)
        try control(EPOLL_CTL_ADD, timer, token: Self.timerToken, interest: .readable)
    }

    deinit {
        for descriptor in [timer, wakeDescriptor, epoll] where descriptor >= 0 {
            close(descriptor)
        }
        events.deallocate()
    }

    /// Starts watching `descriptor`, reporting it under `token` (≥ 0).
    public func add(_ descriptor: Int32, token: Int, interest: Interest) throws(SocketError) {
        try control(EPOLL_CTL_ADD, descriptor, token: token, interest: interest)
    }

    /// Changes what `descriptor` is watched for.
    public func modify(_ descriptor: Int32, token: Int, interest: Interest) throws(SocketError) {
        try control(EPOLL_CTL_MOD, descriptor, token: token, interest: interest)
    }

    /// Stops watching `descriptor` (before it is closed, so no report names a reused number).
    public func remove(_ descriptor: Int32) {
        var unused = epoll_event()
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, &unused)
    }

    /// Makes a current or the next `wait` return; safe from any thread.
    public func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Makes the next `wait` return at `deadline` (`CLOCK_MONOTONIC` nanoseconds) at
    /// the latest, reporting under `wakeToken`; a later call replaces the deadline.
    ///
    /// To the microsecond, where `wait`'s millisecond timeout would bunch work
    /// paced finer than that (a benchmark's writes) into bursts.
    public func wake(atMonotonicNanoseconds deadline: UInt64) {
        guard deadline != timerDeadline else { return }
        timerDeadline = deadline
        let time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        var setting = itimerspec(it_interval: timespec(), it_value: time)
        _ = timerfd_settime(timer, Int32(TFD_TIMER_ABSTIME), &setting, nil)
    }

    /// Waits at most `timeoutMilliseconds` (-1: no limit) and calls `body` for each
    /// ready descriptor. A wake-up or the timer is consumed here and reported under `wakeToken`.
    public func wait(timeoutMilliseconds: Int32, _ body: (Readiness) -> Void) throws(SocketError) {
        let count = epoll_wait(epoll, events.baseAddress, Int32(events.count), timeoutMilliseconds)
        guard count >= 0 else {
            guard errno == EINTR else { throw SocketError.lastError("epoll_wait") }
            return
        }
        for index in 0..<Int(count) {
            let event = events[index]
            var token = Int(truncatingIfNeeded: Int64(bitPattern: event.data.u64))
            if token == Self.wakeToken {
                var count: UInt64 = 0
                _ = read(wakeDescriptor, &count, MemoryLayout<UInt64>.size)
            } else if token == Self.timerToken {
                var expirations: UInt64 = 0
                _ = read(timer, &expirations, MemoryLayout<UInt64>.size)
                timerDeadline = 0
                token = Self.wakeToken
            }
            let flags = event.events
            let failed = flags & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
            body(
                Readiness(
                    token: token,
                    readable: failed || flags & EPOLLIN.rawValue != 0,
                    writable: failed || flags & EPOLLOUT.rawValue != 0,
                    hungUp: failed || flags & EPOLLRDHUP.rawValue != 0))
        }
    }

    private func control(_ operation: Int32, _ descriptor: Int32, token: Int, interest: Interest) throws(SocketError) {
        var event = epoll_event(events: interest.rawValue, data: epoll_data_t(u64: UInt64(bitPattern: Int64(token))))
        guard epoll_ctl(epoll, operation, descriptor, &event) == 0 else {
            throw SocketError.lastError("epoll_ctl")
        }
    }
}
