import Observatory

/// The writes waiting for a node's cache to apply their revision: a node answers
/// a write only once it has applied it, so the writer's next request sees it.
///
/// Thread safety: the applied revision and the waiting actions sit in one
/// `Locked` box, held only to read or change them; actions run after it is released.
final class AppliedRevisionWaiters: Sendable {
    private struct State {
        var applied: Int64
        var waiting: [(revision: Int64, action: @Sendable () -> Void)] = []
    }

    private let state: Locked<State>

    /// Starts with everything up to `revision` applied.
    init(applied revision: Int64) {
        state = Locked(State(applied: revision))
    }

    /// The revision applied so far.
    var applied: Int64 {
        state.withLock { $0.applied }
    }

    /// Runs `action` once `revision` is applied: at once, on this thread, if it is.
    func whenApplied(_ revision: Int64, _ action: @escaping @Sendable () -> Void) {
        let isApplied = state.withLock { state in
            guard state.applied < revision else { return true }
            state.waiting.append((revision, action))
            return false
        }
        if isApplied { action() }
    }

    /// Records that everything up to `revision` is applied and runs the actions due.
    func advance(to revision: Int64) {
        let due = state.withLock { state -> [@Sendable () -> Void] in
            state.applied = max(state.applied, revision)
            let applied = state.applied
            let due = state.waiting.filter { $0.revision <= applied }.map(\.action)
            state.waiting.removeAll { $0.revision <= applied }
            return due
        }
        for action in due { action() }
    }
}
