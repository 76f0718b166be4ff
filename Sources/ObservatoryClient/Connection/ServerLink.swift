import Observatory
import ObservatoryWire

/// One open connection to the server: sends requests, matches every reply to
/// its request by id, hands events to the client, watches liveness, and
/// reports once how it ended.
///
/// A link is never reused: after it ends, the client opens a new one. That
/// makes "which connection does this reply belong to" a non-question.
///
/// Threading: the client's I/O thread (``ClientEventLoop``) feeds it the bytes
/// it reads, in order, and each frame's work (a reply's completion, an event)
/// runs there before the next frame is looked at, so a snapshot is always
/// applied before the events that follow it. Requests may be sent from any
/// thread: the frame joins the link's output, in the order of the calls, and
/// the I/O thread is woken to write it. All state sits in a `Locked` box;
/// completions and callbacks run after the lock is released.
final class ServerLink: ClientLink {
    /// Called with the reply to one request, or with why it will never come.
    typealias Completion = @Sendable (Result<ReceivedReply, ClientError>) -> Void

    private struct State {
        var splitter: FrameSplitter
        var requests = RequestTable<Completion>()
        /// Frames waiting for the I/O thread to write them.
        var output: [UInt8] = []
        var endReason: DisconnectReason?
        /// Set once every waiting request has failed: only then do
        /// `waitUntilEnded()` callers go on.
        var hasEnded = false
        var lastReceived: ContinuousClock.Instant
        var pingSentAt: ContinuousClock.Instant?
        var endWaiters: [CheckedContinuation<DisconnectReason, Never>] = []
    }

    /// Counts links, so that the client can tell an old link's news from the current one's.
    let generation: Int
    private let state: Locked<State>
    /// Wakes the I/O thread: there is output to write, or the link is to end.
    private let wake: @Sendable () -> Void
    private let clock = ContinuousClock()
    private let onEvent: @Sendable (Event, ServerLink) -> Void
    private let onEnd: @Sendable (DisconnectReason, ServerLink) -> Void

    /// A link whose I/O thread ``ClientEventLoop/run(_:on:sendTimeout:tick:)`` serves.
    ///
    /// - Parameters:
    ///   - wake: Wakes the I/O thread (``ClientEventLoop/wake()``).
    ///   - maxFrameBytes: The longest frame accepted; a longer one ends the link.
    ///   - onEvent: Called on the I/O thread for every event, in order.
    ///   - onEnd: Called once when the link ends, before any waiting request fails.
    init(
        wake: @escaping @Sendable () -> Void,
        generation: Int,
        maxFrameBytes: Int = 64 << 20,
        onEvent: @escaping @Sendable (Event, ServerLink) -> Void,
        onEnd: @escaping @Sendable (DisconnectReason, ServerLink) -> Void
    ) {
        self.wake = wake
        self.generation = generation
        self.onEvent = onEvent
        self.onEnd = onEnd
        self.state = Locked(
            State(splitter: FrameSplitter(maxFrameBytes: maxFrameBytes), lastReceived: ContinuousClock.now))
    }

    /// Whether the link has ended (or is to end).
    var hasEnded: Bool { endReason != nil }

    /// Why the link ended (or is to end); nil while it lasts.
    var endReason: DisconnectReason? { state.withLock { $0.endReason } }

    /// Takes the frames waiting to be written, for the I/O thread.
    func takeOutput() -> [UInt8] {
        state.withLock { state in
            defer { state.output.removeAll() }
            return state.output
        }
    }

    // MARK: Requests

    /// Sends a request; `completion` gets its reply, or the reason there will be none.
    func send(_ operation: Operation, completion: @escaping Completion) {
        let ended: DisconnectReason? = state.withLock { state in
            if let reason = state.endReason { return reason }
            let identifier = state.requests.register(completion)
            state.output += Request(id: .integer(identifier), operation: operation).encodedLine()
            return nil
        }
        if let ended {
            completion(.failure(.connectionLost(ended)))
        } else {
            wake()
        }
    }

    /// Sends a request and waits for its reply.
    func request(_ operation: Operation) async -> Result<ReceivedReply, ClientError> {
        await withCheckedContinuation { continuation in
            send(operation) { result in continuation.resume(returning: result) }
        }
    }

    // MARK: Receiving

    /// What one received frame asks for, done after the lock is released.
    private enum Action {
        case complete(Completion, ReceivedReply)
        case event(Event)
        case end(DisconnectReason)
    }

    /// Takes bytes the I/O thread read, and does each complete frame's work in order.
    func receive(_ bytes: [UInt8]) {
        let actions = state.withLock { state in
            state.lastReceived = clock.now
            state.splitter.append(bytes)
            return Self.takeFrames(from: &state)
        }
        for action in actions {
            switch action {
            case .complete(let completion, let reply):
                completion(.success(reply))
            case .event(let event):
                onEvent(event, self)
            case .end(let reason):
                end(reason)
                return
            }
        }
    }

    /// Decodes every complete frame; stops at the first that ends the link.
    private static func takeFrames(from state: inout State) -> [Action] {
        var actions: [Action] = []
        while true {
            let frame: [UInt8]?
            do {
                frame = try state.splitter.next()
            } catch {
                actions.append(.end(.protocolError("the server sent a frame that is too long: \(error.message)")))
                return actions
            }
            guard let frame else { return actions }
            let message: ServerMessage
            do {
                message = try ServerMessage.decode(frame: frame)
            } catch {
                actions.append(.end(.protocolError(error.message)))
                return actions
            }
            actions.append(action(for: message, in: &state))
            if case .end = actions.last { return actions }
            if isShuttingDown(message) {
                // The server is going away and answers nothing any more: end
                // the link now, so the client reconnects instead of keeping a
                // connection on which nothing can be done.
                actions.append(.end(.serverShutdown))
                return actions
            }
        }
    }

    private static func isShuttingDown(_ message: ServerMessage) -> Bool {
        guard case .reply(let reply) = message, case .failure(let error) = reply.outcome else { return false }
        return error.code == .shuttingDown
    }

    private static func action(for message: ServerMessage, in state: inout State) -> Action {
        switch message {
        case .event(.shutdown):
            return .end(.serverShutdown)
        case .event(let event):
            return .event(event)
        case .reply(let reply):
            guard case .integer(let identifier)? = reply.id else {
                // A reply with id null answers no request of ours: the server
                // rejected the connection (slow_consumer, frame_too_large, ...).
                if case .failure(let error) = reply.outcome {
                    // Every event up to the error's revision came before it: resume from there.
                    if error.code == .slowConsumer { return .end(.slowConsumer(revision: error.revision)) }
                    return .end(.rejected("\(error.code): \(error.message)"))
                }
                return .end(.protocolError("a reply without a request id"))
            }
            guard let completion = state.requests.complete(identifier) else {
                return .end(.protocolError("a reply to request \(identifier), which is not waiting"))
            }
            return .complete(completion, reply)
        }
    }

    // MARK: Ending

    /// Ends the link: the I/O thread closes the socket and then finishes it. The first reason counts.
    func end(_ reason: DisconnectReason) {
        state.withLock { state in
            if state.endReason == nil { state.endReason = reason }
        }
        wake()
    }

    /// Runs once, on the I/O thread, after the socket is closed.
    func finish(_ readerReason: DisconnectReason) {
        let reason = state.withLock { state in
            if state.endReason == nil { state.endReason = readerReason }
            return state.endReason ?? readerReason
        }
        onEnd(reason, self)
        // No request registers any more (`endReason` is set), so the table can
        // be emptied first, and the waiters released only after every
        // completion has run.
        let completions = state.withLock { $0.requests.removeAll() }
        for completion in completions {
            completion(.failure(.connectionLost(reason)))
        }
        let waiters = state.withLock { state in
            state.hasEnded = true
            defer { state.endWaiters.removeAll() }
            return state.endWaiters
        }
        for waiter in waiters {
            waiter.resume(returning: reason)
        }
    }

    /// Waits until the link has ended, and says why.
    func waitUntilEnded() async -> DisconnectReason {
        await withCheckedContinuation { continuation in
            let reason: DisconnectReason? = state.withLock { state in
                guard state.hasEnded else {
                    state.endWaiters.append(continuation)
                    return nil
                }
                return state.endReason ?? .closedByServer
            }
            if let reason { continuation.resume(returning: reason) }
        }
    }

    // MARK: Liveness

    /// Called by the I/O thread on every turn: pings when the link has been idle
    /// for `interval`, and ends it when a ping stays unanswered for `timeout`;
    /// hands each ping reply's revision to `progress`.
    func checkLiveness(interval: Duration, timeout: Duration, progress: @escaping @Sendable (Int64) -> Void) {
        switch livenessCheck(interval: interval, timeout: timeout) {
        case .fine:
            return
        case .ping:
            send(.ping) { [self] result in
                state.withLock { $0.pingSentAt = nil }
                // The reply's revision is how far this link has seen every change it observes.
                if case .success(let reply) = result, case .ping(let revision, _)? = try? reply.payload(for: .ping) {
                    progress(revision)
                }
            }
        case .dead:
            end(.pingTimeout)
        }
    }

    private enum Liveness { case fine, ping, dead }

    private func livenessCheck(interval: Duration, timeout: Duration) -> Liveness {
        let now = clock.now
        return state.withLock { state in
            if let sentAt = state.pingSentAt {
                return now - sentAt >= timeout ? .dead : .fine
            }
            guard now - state.lastReceived >= interval else { return .fine }
            state.pingSentAt = now
            return .ping
        }
    }
}
