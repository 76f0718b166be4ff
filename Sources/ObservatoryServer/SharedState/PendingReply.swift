import Observatory
import ObservatoryWire

/// The reply to a write that the shared state answers later: in cluster mode,
/// once etcd has answered and the node has applied the write's revision.
///
/// The session queues it in its place among the replies; the connection sends
/// nothing behind it until it is fulfilled, so replies keep their request
/// order however many writes are in flight.
///
/// Thread safety: fulfilled on whatever thread the answer arrives on, read by
/// the connection's loop. The result and the waiting actions sit in one
/// `Locked` box, held only to read or change them; the actions run after it
/// is released.
final class PendingReply: Sendable {
    private struct State {
        var result: Result<ReplyPayload, WireError>?
        var waiting: [@Sendable () -> Void] = []
    }

    private let state = Locked(State())

    /// Creates a reply that is not known yet.
    init() {}

    /// The reply's fields, or the write's error, once known.
    var result: Result<ReplyPayload, WireError>? {
        state.withLock { $0.result }
    }

    /// Sets the outcome (only the first call counts) and runs the waiting actions.
    func fulfill(_ result: Result<ReplyPayload, WireError>) {
        let waiting = state.withLock { state -> [@Sendable () -> Void] in
            guard state.result == nil else { return [] }
            state.result = result
            defer { state.waiting = [] }
            return state.waiting
        }
        for action in waiting { action() }
    }

    /// Runs `action` once the outcome is known: at once, on this thread, if it is.
    func whenFulfilled(_ action: @escaping @Sendable () -> Void) {
        let isFulfilled = state.withLock { state in
            guard state.result == nil else { return true }
            state.waiting.append(action)
            return false
        }
        if isFulfilled { action() }
    }
}
