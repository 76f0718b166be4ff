import Observatory
import ObservatoryWire

/// Everything that leaves one connection: its `OutboundQueue` and the
/// `ObservationSet` deciding which changes it receives, behind one lock.
///
/// Written from two sides: the connection's own event loop appends replies and
/// sends bytes; store handlers, on whatever thread made a change, append events.
/// Handlers call `deliver(_:via:)`, which only takes this lock, queues bytes and
/// asks the connection's loop for a flush (at most one request outstanding), so a
/// writer never touches another client's socket. An answer the shared state gives
/// later (`ReplySlot`) comes through `answer(_:into:)`, which reads the connection
/// under this lock and hands the answer to the connection's loop; there it fills
/// its slot in the queue (`fill(_:with:)`).
///
/// Built by its `Connection`, which binds it to itself in the same initializer
/// (`bind(to:)`), before any other thread can reach the output.
final class ConnectionOutput: Sendable {
    private struct State {
        var queue: OutboundQueue
        var observations: ObservationSet
        /// A flush was requested and has not started yet, or the socket is full and
        /// the loop flushes once epoll reports it writable: no new request is needed.
        var isFlushPending = false
        /// The queue overflowed and the connection has been told (once).
        var isSlowConsumerReported = false
        /// The connection this output belongs to, which the loop flushes; `nil` in
        /// tests of sessions without sockets, and once the connection has closed.
        /// Strong, and dropped by `unbind()` when the connection closes its socket:
        /// a weak reference would give the connection a side table, through which
        /// every retain and release of it goes the runtime's slow way (callgrind:
        /// three of each a `set`, about 500 instructions).
        var connection: Connection?
    }

    private let state: Locked<State>
    /// How far events may go: the shared state's revision gate.
    private let gate: RevisionGate

    /// Creates the output with the connection's limits; `gate` tells how far
    /// events may go (everywhere without storage).
    init(
        maxQueuedBytes: Int, maxObservations: Int, gate: RevisionGate = RevisionGate(reached: .max)
    ) {
        state = Locked(
            State(
                queue: OutboundQueue(maxQueuedBytes: maxQueuedBytes),
                observations: ObservationSet(limit: maxObservations)))
        self.gate = gate
    }

    /// Makes `connection` the one whose loop flushes this output; called once, by
    /// the connection's initializer. The output holds it until `unbind()`.
    func bind(to connection: Connection) {
        state.withLock { $0.connection = connection }
    }

    /// Lets go of the connection, which has closed its socket: later events,
    /// answers and timers no longer reach it, and nothing keeps it alive.
    func unbind() {
        let connection = state.withLock { state -> Connection? in
            defer { state.connection = nil }
            return state.connection
        }
        // Released outside the lock: the last release runs the connection's deinit.
        withExtendedLifetime(connection) {}
    }

    /// The connection, while it is bound (until it closes its socket). What a
    /// connection schedules on its loop or the gate reaches it through here, not
    /// through a weak reference (see `State.connection`).
    var boundConnection: Connection? {
        state.withLock { $0.connection }
    }

    /// Asks the loop of `connection` (read under the lock, with the decision to
    /// flush) to flush it, outside the lock.
    private func requestFlush(of connection: Connection?) {
        guard let connection else { return }
        connection.loop.scheduleFlush(of: connection)
    }

    /// Queues a change that arrived on `route` if this connection wants it by that route.
    func deliver(_ change: StoreChange, via route: ObservationSet.Route) {
        // Read from the one object all connections share, not through a closure of
        // this connection's: one cache line fewer per delivery.
        let acknowledged = gate.reached
        let flushing = state.withLock { state -> Connection? in
            guard state.observations.acceptsEvent(change, via: route) else { return nil }
            let mayCoalesce = !state.observations.hasClosingTargets || state.observations.mayCoalesce(change.key)
            let outcome = state.queue.appendEvent(change, acknowledgedRevision: acknowledged, mayCoalesce: mayCoalesce)
            return Self.needsFlush(after: outcome, &state) ? state.connection : nil
        }
        requestFlush(of: flushing)
    }

    /// Queues the changes a resumed `observe` replays, right behind its reply and
    /// ahead of the events held meanwhile, filtered like live events of `route`.
    func replay(_ changes: [StoreChange], via route: ObservationSet.Route) {
        let flushing = state.withLock { state -> Connection? in
            var outcome = OutboundQueue.EventOutcome.queued
            for change in changes where state.observations.accepts(change.key, via: route) {
                outcome = state.queue.appendReplayed(change, mayCoalesce: state.observations.mayCoalesce(change.key))
                if outcome == .slowConsumer { break }
            }
            return Self.needsFlush(after: outcome, &state) ? state.connection : nil
        }
        requestFlush(of: flushing)
    }

    /// Whether a flush must be requested after events were queued with `outcome`.
    private static func needsFlush(after outcome: OutboundQueue.EventOutcome, _ state: inout State) -> Bool {
        if outcome == .slowConsumer && !state.isSlowConsumerReported {
            // Even with a flush pending on a full socket, the connection must learn now
            // so it can start its close deadline.
            state.isSlowConsumerReported = true
            return true
        }
        return claimFlush(&state)
    }

    /// Queues a reply (the caller flushes), copied straight into the queue's write
    /// buffer when it may go now. The reply to a change waits for storage to
    /// acknowledge the change's revision (its `version`).
    func append(_ reply: Reply) {
        _ = queue(.line(reply.encodedLine()), releasingEventsFirst: false)
    }

    /// Queues the slot of a write's reply that the shared state gives later
    /// (the caller flushes); nothing behind it goes out before it.
    func appendPendingWrite(slot: Int, id: RequestID?) {
        state.withLock { $0.queue.appendPendingWrite(slot: slot, id: id) }
    }

    /// Queues the slot of a resuming `observe`'s reply and replay (a resume after
    /// `resumeRevision`) that the shared state gives later (the caller flushes);
    /// its replay is filtered by the observations as they are now, like live
    /// events of `route`.
    func appendPendingObservation(slot: Int, resumeRevision: Int64, id: RequestID?, route: ObservationSet.Route) {
        state.withLock { state in
            state.queue.appendPendingObservation(
                PendingObservation(
                    slot: slot, resumeRevision: resumeRevision, id: id, route: route,
                    observations: state.observations))
        }
    }

    /// Hands the answer to reply slot `slot` to this output's connection, on the
    /// connection's own loop (`Connection.receive(_:into:)`); from any thread.
    /// Dropped when the connection has gone (or none was bound: a session
    /// tested without sockets, whose test carries answers itself).
    func answer(_ answer: ReplySlot.Answer, into slot: Int) {
        guard let connection = state.withLock({ $0.connection }) else { return }
        connection.loop.execute { connection.receive(answer, into: slot) }
    }

    /// Fills reply slot `slot` with its answer (see `OutboundQueue.fill(_:with:)`);
    /// `false` when no such slot waits. The caller flushes.
    @discardableResult
    func fill(_ slot: Int, with answer: ReplySlot.Answer) -> Bool {
        state.withLock { $0.queue.fill(slot, with: answer) }
    }

    /// Queues a reply that carries values, copying their bytes (the caller flushes).
    func append(_ reply: RawReply) {
        appendFrame(reply.encodedLine())
    }

    /// Queues an event that is not a store change, such as `shutdown` (the caller flushes).
    func append(_ event: RawEvent) {
        appendFrame(event.encodedLine())
    }

    private func appendFrame(_ frame: [UInt8]) {
        state.withLock { $0.queue.appendFrame(frame) }
    }

    /// Makes events wait while a batch of requests is answered.
    func holdEvents() {
        state.withLock { $0.queue.holdEvents() }
    }

    /// Queues the events that waited, after the replies (the caller flushes).
    func releaseEvents() {
        state.withLock { _ = $0.queue.releaseEvents() }
    }

    /// Changes the set of observed targets under the lock that handlers read it with.
    func updateObservations<Result, Failure: Error>(
        _ body: (inout ObservationSet) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try state.withLock { state throws(Failure) in try body(&state.observations) }
    }

    /// The observed targets.
    var observations: ObservationSet {
        state.withLock { $0.observations }
    }

    /// Runs `body` on the queue; used by the writer to take and confirm bytes.
    func withQueue<Result>(_ body: (inout OutboundQueue) -> Result) -> Result {
        state.withLock { body(&$0.queue) }
    }

    /// Queues one answer (after the events held, if it vouches for them; with
    /// `releasingEventsAfter`, the events held go behind it and no longer wait)
    /// under one lock, and returns the bytes queued then (the caller flushes).
    func queue(_ answer: Session.Answer, releasingEventsFirst: Bool, releasingEventsAfter: Bool = false) -> Int {
        let releasing = (first: releasingEventsFirst, after: releasingEventsAfter)
        switch answer {
        case .line(let frame):
            return locked(releasing) { $0.queue.appendFrame(frame) }
        case .pendingWrite(let slot, let id):
            return locked(releasing) { $0.queue.appendPendingWrite(slot: slot, id: id) }
        case .pendingObservation(let slot, let resumeRevision, let id, let route):
            return locked(releasing) { state in
                state.queue.appendPendingObservation(
                    PendingObservation(
                        slot: slot, resumeRevision: resumeRevision, id: id, route: route,
                        observations: state.observations))
            }
        }
    }

    /// Queues the success of a write (`set`, `delete`, `batch`) to request `id`
    /// under one lock, written straight into the write buffer when it may go now
    /// (a few bytes a key, bounded by the request's; the reply to a change waits
    /// for storage to acknowledge its revision), with the events held behind it
    /// if `releasingEventsAfter`; returns the bytes queued then (the caller flushes).
    func queueWritten(_ payload: ReplyPayload, id: RequestID?, releasingEventsAfter: Bool) -> Int {
        let acknowledged = gate.reached
        return locked((first: false, after: releasingEventsAfter)) {
            $0.queue.appendSuccess(payload, id: id, acknowledgedRevision: acknowledged)
        }
    }

    /// Queues the success of a `set` from its fields, as `queueWritten(_:id:releasingEventsAfter:)`
    /// queues it from its payload; returns the bytes queued then (the caller flushes).
    func queueWrittenSet(
        key: String, version: Int64, changed: Bool?, duplicate: Bool, id: RequestID?, releasingEventsAfter: Bool
    ) -> Int {
        let acknowledged = gate.reached
        return locked((first: false, after: releasingEventsAfter)) {
            $0.queue.appendSet(
                key: key, version: version, changed: changed, duplicate: duplicate, id: id,
                acknowledgedRevision: acknowledged)
        }
    }

    /// Runs `body` on the state under the lock, after queueing the events held
    /// (which then wait again) if `releasing.first`, and queues the events held
    /// behind what it queued if `releasing.after`; returns the bytes queued.
    private func locked(_ releasing: (first: Bool, after: Bool), _ body: (inout State) -> Void) -> Int {
        state.withLock { state in
            if releasing.first, state.queue.isHolding {
                _ = state.queue.releaseEvents()
                state.queue.holdEvents()
            }
            body(&state)
            if releasing.after { _ = state.queue.releaseEvents() }
            return state.queue.queuedBytes
        }
    }

    /// Marks the start of a flush (later events request a new one) and takes the
    /// first bytes to send, counted as sent (`OutboundQueue.takeForSending`), with
    /// the queue's state then, under one lock.
    func startFlush(
        acknowledging acknowledgement: OutboundQueue.Acknowledgement
    ) -> (bytes: ArraySlice<UInt8>, look: OutboundQueue.Look) {
        state.withLock { state in
            state.isFlushPending = false
            return (state.queue.takeForSending(acknowledging: acknowledgement), state.queue.look)
        }
    }

    /// Takes the next bytes to send after the last ones went out whole, as
    /// `startFlush(acknowledging:)` does, under one lock.
    func takeNext(
        acknowledging acknowledgement: OutboundQueue.Acknowledgement
    ) -> (bytes: ArraySlice<UInt8>, look: OutboundQueue.Look) {
        state.withLock { state in
            (state.queue.takeForSending(acknowledging: acknowledgement), state.queue.look)
        }
    }

    /// Gives back the bytes of the last take that the socket did not take
    /// (`OutboundQueue.putBack(_:)`) and returns the queue's state, under one lock:
    /// the socket is full, so the loop flushes once epoll reports it writable.
    func sentPartly(leaving unsent: ArraySlice<UInt8>) -> OutboundQueue.Look {
        state.withLock { state in
            state.queue.putBack(unsent)
            state.isFlushPending = true
            return state.queue.look
        }
    }

    /// Marks the start of a flush: later events request a new one.
    func flushStarted() {
        state.withLock { $0.isFlushPending = false }
    }

    /// Marks that the socket is full: the loop flushes once epoll reports it writable.
    func flushDeferredToSocket() {
        state.withLock { $0.isFlushPending = true }
    }

    private static func claimFlush(_ state: inout State) -> Bool {
        guard !state.isFlushPending else { return false }
        state.isFlushPending = true
        return true
    }
}
