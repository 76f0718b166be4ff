import Observatory
import ObservatoryWire

/// One open connection to the server: writes requests, splits and decodes
/// what the server sends and hands each reply and event to the client, notes
/// when it last heard from the server, and reports once how it ended. The
/// client's machine keeps the requests that wait for replies and decides liveness.
///
/// A link is never reused: after it ends, the client opens a new one. That
/// makes "which connection does this reply belong to" a non-question.
///
/// Threading: the client's I/O thread (``ClientEventLoop``) feeds it the bytes
/// it reads, in order, and each frame's work (a reply's completion, an event)
/// runs there before the next frame is looked at, so a snapshot is always
/// applied before the events that follow it. Requests may be written from any
/// thread: the frame joins the link's output, in the order of the calls, and
/// the I/O thread is woken to write it. All state sits in a `Locked` box;
/// callbacks run after the lock is released.
final class ServerLink: ClientLink {
    /// Called with the reply to one request, or with why it will never come.
    typealias Completion = RequestCompletion

    private struct State {
        var splitter: FrameSplitter
        /// Frames waiting for the I/O thread to write them.
        var output: [UInt8] = []
        var endReason: DisconnectReason?
        /// Set once the client has heard of the end (and failed its waiting
        /// requests): only then do `waitUntilEnded()` callers go on.
        var hasEnded = false
        var lastReceived: ContinuousClock.Instant
        var endWaiters: [CheckedContinuation<DisconnectReason, Never>] = []
    }

    /// Counts links, so that the client can tell an old link's news from the current one's.
    let generation: Int
    private let state: Locked<State>
    /// Wakes the I/O thread: there is output to write, or the link is to end.
    private let wake: @Sendable () -> Void
    private let clock = ContinuousClock()
    private let onReply: @Sendable (ReceivedReply, ServerLink) -> Void
    private let onEvent: @Sendable (Event, ServerLink) -> Void
    private let onReadEnd: @Sendable (_ midFrame: Bool, ServerLink) -> Void
    private let onEnd: @Sendable (DisconnectReason, ServerLink) -> Void

    /// A link whose I/O thread ``ClientEventLoop/run(_:on:sendTimeout:tick:)`` serves.
    ///
    /// - Parameters:
    ///   - wake: Wakes the I/O thread (``ClientEventLoop/wake()``).
    ///   - maxFrameBytes: The longest frame accepted; a longer one ends the link.
    ///   - onReply: Called on the I/O thread for every reply to a request (one
    ///     with an integer id), in order with the events.
    ///   - onEvent: Called on the I/O thread for every event, in order.
    ///   - onReadEnd: Called on the I/O thread when the socket has nothing more
    ///     to read for now (``readPaused()``), and before an end a frame asked for:
    ///     `midFrame` says whether the bytes ended inside a frame (the client's run
    ///     of events may go on in it).
    ///   - onEnd: Called once when the link ends; the client fails its waiting requests there.
    init(
        wake: @escaping @Sendable () -> Void,
        generation: Int,
        maxFrameBytes: Int = 64 << 20,
        onReply: @escaping @Sendable (ReceivedReply, ServerLink) -> Void,
        onEvent: @escaping @Sendable (Event, ServerLink) -> Void,
        onReadEnd: @escaping @Sendable (_ midFrame: Bool, ServerLink) -> Void = { _, _ in },
        onEnd: @escaping @Sendable (DisconnectReason, ServerLink) -> Void
    ) {
        self.wake = wake
        self.generation = generation
        self.onReply = onReply
        self.onEvent = onEvent
        self.onReadEnd = onReadEnd
        self.onEnd = onEnd
        self.state = Locked(
            State(splitter: FrameSplitter(maxFrameBytes: maxFrameBytes), lastReceived: ContinuousClock.now))
    }

    /// Whether the link has ended (or is to end).
    var hasEnded: Bool { endReason != nil }

    /// When the link last received bytes (when it was made, before any): the
    /// client's machine measures its liveness and resync deadlines from it.
    var lastReceived: ContinuousClock.Instant { state.withLock { $0.lastReceived } }

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

    /// Queues `request` for the I/O thread to write; false (and nothing is
    /// written) when the link has ended. The client has registered its id.
    @discardableResult
    func write(_ request: Request<JSONValue>) -> Bool {
        let written = state.withLock { state in
            guard state.endReason == nil else { return false }
            state.output += request.encodedLine()
            return true
        }
        if written { wake() }
        return written
    }

    // MARK: Receiving

    /// What one received frame asks for, done after the lock is released.
    private enum Action {
        case reply(ReceivedReply)
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
            // The client may have ended the link for a frame of these bytes (a stray reply).
            if hasEnded { return }
            switch action {
            case .reply(let reply):
                onReply(reply, self)
            case .event(let event):
                onEvent(event, self)
            case .end(let reason):
                // The events before the frame that ends the link were all sent: apply them.
                onReadEnd(false, self)
                end(reason)
                return
            }
        }
    }

    /// The socket has nothing more to read for now: says whether the bytes
    /// received so far ended inside a frame (`onReadEnd`), so that the client
    /// knows whether a run of events may go on.
    func readPaused() {
        guard !hasEnded else { return }
        let midFrame = state.withLock { $0.splitter.bufferedByteCount > 0 }
        onReadEnd(midFrame, self)
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
            actions.append(action(for: message))
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

    private static func action(for message: ServerMessage) -> Action {
        switch message {
        case .event(.shutdown):
            return .end(.serverShutdown)
        case .event(let event):
            return .event(event)
        case .reply(let reply):
            guard case .integer? = reply.id else {
                // A reply with id null answers no request of ours: the server
                // rejected the connection (slow_consumer, frame_too_large, ...).
                if case .failure(let error) = reply.outcome {
                    // Every event up to the error's revision came before it: resume from there.
                    if error.code == .slowConsumer { return .end(.slowConsumer(revision: error.revision)) }
                    return .end(.rejected("\(error.code): \(error.message)"))
                }
                return .end(.protocolError("a reply without a request id"))
            }
            return .reply(reply)
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
        // The client fails its waiting requests here; the waiters go on only after.
        onEnd(reason, self)
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
}
