/// The callers of ``ObservatoryClient/waitUntilSynchronized(timeout:)`` that wait
/// for the connection's state to change, each until its deadline.
///
/// A plain value in the client's lock. The client resumes every waiter when the
/// state changes, and its I/O thread resumes those whose deadline has passed
/// (it asks ``nextDeadline`` how long it may sleep), so no waiter needs a timer of its own.
/// `Continuation` is what resumes a waiter (a `CheckedContinuation`; a plain
/// value in the unit tests).
struct StateWaiters<Continuation> {
    private struct Waiter {
        let continuation: Continuation
        let deadline: ContinuousClock.Instant
    }

    private var waiting: [Waiter] = []
    /// How many times the state has changed: a caller that read an older count
    /// has missed a change, and looks again instead of waiting.
    private(set) var changes = 0

    /// The earliest deadline of a waiter, if any waits.
    var nextDeadline: ContinuousClock.Instant? { waiting.map(\.deadline).min() }

    /// Adds a waiter until `deadline`.
    mutating func add(_ continuation: Continuation, until deadline: ContinuousClock.Instant) {
        waiting.append(Waiter(continuation: continuation, deadline: deadline))
    }

    /// The state changed: takes every waiter out, to be resumed.
    mutating func stateChanged() -> [Continuation] {
        changes += 1
        defer { waiting.removeAll() }
        return waiting.map(\.continuation)
    }

    /// Takes out the waiters whose deadline is not after `now`, to be resumed.
    mutating func expire(at now: ContinuousClock.Instant) -> [Continuation] {
        let expired = waiting.filter { $0.deadline <= now }
        guard !expired.isEmpty else { return [] }
        waiting.removeAll { $0.deadline <= now }
        return expired.map(\.continuation)
    }
}
