import Dispatch
import Observatory
import ObservatorySockets
import ObservatoryWire

/// One open connection to the server: sends requests, matches every reply to
/// its request by id, hands events to the client, watches liveness, and
/// reports once how it ended.
///
/// A link is never reused: after it ends, the client opens a new one. That
/// makes "which connection does this reply belong to" a non-question.
///
/// Threading: frames are decoded on the socket's reader thread, in order, and
/// each frame's work (a reply's completion, an event) runs there before the
/// next frame is looked at, so a snapshot is always applied before the events
/// that follow it. All state sits in a `Locked` box; completions and callbacks run
/// after the lock is released. Writes go through a serial queue, in the order
/// they were submitted.
final class ServerLink: ClientLink {
    /// Called with the reply to one request, or with why it will never come.
    typealias Completion = @Sendable (Result<ReceivedReply, ClientError>) -> Void

    private struct State {
        var splitter: FrameSplitter
        var requests = RequestTable<Completion>()
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
    private let socket: SocketConnection
    private let state: Locked<State>
    private let writeQueue: DispatchQueue
    private let clock = ContinuousClock()
    private let onEvent: @Sendable (Event, ServerLink) -> Void
    private let onEnd: @Sendable (DisconnectReason, ServerLink) -> Void

    /// Wraps a connected socket. Nothing is read until ``start()``.
    ///
    /// - Parameters:
    ///   - maxFrameBytes: The longest frame accepted; a longer one ends the link.
    ///   - onEvent: Called on the reader thread for every event, in order.
    ///   - onEnd: Called once when the link ends, before any waiting request fails.
    init(
        socket: SocketConnection,
        generation: Int,
        maxFrameBytes: Int = 64 << 20,
        onEvent: @escaping @Sendable (Event, ServerLink) -> Void,
        onEnd: @escaping @Sendable (DisconnectReason, ServerLink) -> Void
    ) {
        self.socket = socket
        self.generation = generation
        self.onEvent = onEvent
        self.onEnd = onEnd
        self.state = Locked(
            State(splitter: FrameSplitter(maxFrameBytes: maxFrameBytes), lastReceived: ContinuousClock.now))
        self.writeQueue = DispatchQueue(label: "observatory.client.write.\(generation)")
    }

    /// Starts reading frames.
    func start() {
        socket.startReading(
            received: { [self] bytes in receive(bytes) },
            ended: { [self] error in
                finish(error.map { DisconnectReason.connectionFailed($0.description) } ?? .closedByServer)
            }
        )
    }

    /// Whether the link has ended.
    var hasEnded: Bool { state.withLock { $0.endReason != nil } }

    // MARK: Requests

    /// Sends a request; `completion` gets its reply, or the reason there will be none.
    func send(_ operation: Operation, completion: @escaping Completion) {
        let registered: Result<Int64, DisconnectReason> = state.withLock { state in
            if let reason = state.endReason { return .failure(reason) }
            return .success(state.requests.register(completion))
        }
        switch registered {
        case .failure(let reason):
            completion(.failure(.connectionLost(reason)))
        case .success(let identifier):
            let frame = Request(id: .integer(identifier), operation: operation).encodedLine()
            writeQueue.async { [self] in
                do throws(SocketError) {
                    try socket.write(frame)
                } catch {
                    end(.connectionFailed(error.description))
                }
            }
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

    private func receive(_ bytes: [UInt8]) {
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

    /// Ends the link: closes the socket; the reader thread then finishes it.
    func end(_ reason: DisconnectReason) {
        state.withLock { state in
            if state.endReason == nil { state.endReason = reason }
        }
        socket.close()
    }

    /// Runs once, on the reader thread, after the last frame.
    private func finish(_ readerReason: DisconnectReason) {
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

    /// Pings when the link is idle and ends it when a ping stays unanswered,
    /// until the link ends or the task is cancelled; hands each ping reply's
    /// revision to `progress`.
    func keepAlive(interval: Duration, timeout: Duration, progress: @escaping @Sendable (Int64) -> Void = { _ in })
        async
    {
        let tick = max(min(interval, timeout) / 4, .milliseconds(5))
        while !Task.isCancelled && !hasEnded {
            try? await Task.sleep(for: tick)
            switch livenessCheck(interval: interval, timeout: timeout) {
            case .fine:
                continue
            case .ping:
                send(.ping) { [self] result in
                    state.withLock { $0.pingSentAt = nil }
                    // The reply's revision is how far this link has seen every change it observes.
                    if case .success(let reply) = result, case .ping(let revision, _)? = try? reply.payload(for: .ping)
                    {
                        progress(revision)
                    }
                }
            case .dead:
                end(.pingTimeout)
                return
            }
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
