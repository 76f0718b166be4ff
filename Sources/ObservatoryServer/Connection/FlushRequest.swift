import Observatory

/// A late-bound callback: the output of a connection is created before the
/// connection itself, so the request to flush is wired up once both exist.
final class FlushRequest: Sendable {
    /// Wraps the closure in a struct: a bare function value stored in the generic
    /// `Locked` box would be re-abstracted on every `inout` access, wrapping it in
    /// one more thunk each time it is read.
    private struct Action {
        let run: @Sendable () -> Void
    }

    private let action = Locked<Action?>(nil)

    /// Sets what `fire()` does.
    func connect(_ run: @escaping @Sendable () -> Void) {
        action.withLock { $0 = Action(run: run) }
    }

    /// Runs the connected action, if any.
    func fire() {
        action.withLock { $0 }?.run()
    }
}
