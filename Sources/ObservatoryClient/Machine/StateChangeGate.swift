import ObservatoryLocking

/// The callers of ``ObservatoryClient/waitUntilSynchronized(timeout:)`` waiting
/// for the connection's state to change, each until its deadline: the
/// project's one gate (`GateMachine`) over how many times the state has changed.
///
/// A plain value in the client's lock. A caller that read the count `n` waits
/// for `n + 1` (one that read an older count has missed a change, and looks
/// again instead of waiting); every change advances the gate by one, resuming
/// every waiter; the client's I/O thread asks `nextDeadline` how long it may
/// sleep and expires the waiters whose deadline passed, so no waiter needs a
/// timer of its own. Nothing is ever lost (`Never`); however a wait ends, its
/// caller looks at the state again.
typealias StateChangeGate = GateMachine<CheckedContinuation<Void, Never>, Never>
