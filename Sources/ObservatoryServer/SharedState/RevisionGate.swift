import ObservatoryLocking
import ObservatoryWire
import Synchronization

/// The revision gate: the one place that knows how far revisions have passed
/// (written or synced per the fsync policy, or applied by a cluster node's
/// watch), which were lost, and who waits for one. The shared state owns it;
/// storage or the cluster's watch advances it; connections wait on it before
/// they send a reply or an event, and a cluster node's write replies and its
/// catch-up wait on it too.
///
/// Its rules are `RevisionGateMachine`, the project's one gate (`GateMachine`)
/// over revisions. Every input returns a `Wakeup`, the waiters to wake, which
/// the caller runs once it holds no lock: a caller that holds its own lock
/// (storage, whose lock orders the advances) keeps the `Wakeup` and runs it
/// after releasing that lock. Each waiter runs exactly once, told how its wait
/// ended. A wait may have a deadline (a cluster node's write reply); the gate
/// reads no clock, its owner calls `expire(at:)` at `nextDeadline`
/// (`RevisionGateTimer`).
///
/// ## Locking
/// One `Locked` box guards the machine: the passed revision, the lost revisions
/// and the waiters. It is held only to read or change them: nothing blocks
/// under it and no waiter runs under it. It is a leaf: nothing else is locked
/// while it is held (storage takes it under its own lock, never the reverse).
/// The passed revision is also kept in an atomic, so that connections read it
/// per event with a load and no lock.
final class RevisionGate: Sendable {
    /// How a wait ended: the revision passed, was lost (with its writer's error),
    /// the waiter's deadline passed first, or the gate closed.
    typealias Ending = GateEnding<WireError>

    /// Waiters to wake, returned by every input and run by the caller outside any lock.
    struct Wakeup: Sendable {
        fileprivate var woken: [RevisionGateMachine.Woken] = []

        /// Nothing to wake.
        init() {}

        fileprivate init(_ woken: [RevisionGateMachine.Woken]) {
            self.woken = woken
        }

        /// Adds the waiters of `other`, after these.
        static func += (wakeup: inout Wakeup, other: Wakeup) {
            wakeup.woken += other.woken
        }

        /// Runs the waiters, in order, each told how its wait ended; call it holding no lock.
        func run() {
            for each in woken { each.waiter(each.ending) }
        }
    }

    private let machine: Locked<RevisionGateMachine>
    private let passed: Atomic<Int64>

    /// A gate that everything up to `revision` has passed; `.max` lets
    /// everything through (state kept in memory only).
    init(reached revision: Int64) {
        machine = Locked(RevisionGateMachine(reached: revision))
        passed = Atomic(revision)
    }

    /// The revision up to which replies to writes and events may go out.
    var reached: Int64 {
        passed.load(ordering: .acquiring)
    }

    /// Runs `action` once `revision` passed or is lost, or the gate closed: at
    /// once, on this thread, if it already has; else on the thread that advances
    /// the gate, after that thread released its locks.
    func wait(for revision: Int64, _ action: @escaping @Sendable () -> Void) {
        wait(for: revision, until: nil) { _ in action() }
    }

    /// Runs `action` once, told how the wait ended: once `revision` passed or is
    /// lost, or the gate closed, or (with a `deadline`) once the owner expires
    /// the gate at or after `deadline`, whichever comes first. At once, on this
    /// thread, if the revision already passed or is lost or the gate closed;
    /// else on the thread of the input that ends the wait, after it released its locks.
    ///
    /// - Returns: Whether it waits (false: `action` already ran), so that a
    ///   caller with a deadline sets its timer only for a wait.
    @discardableResult
    func wait(
        for revision: Int64, until deadline: ContinuousClock.Instant?,
        _ action: @escaping @Sendable (Ending) -> Void
    ) -> Bool {
        let wakeup = Wakeup(machine.withLock { $0.wait(for: revision, until: deadline, action) })
        wakeup.run()
        return wakeup.woken.isEmpty
    }

    /// The time is `now`: returns the waiters whose deadline passed, told they
    /// timed out, and the next deadline of a waiter still waiting.
    func expire(at now: ContinuousClock.Instant) -> (wakeup: Wakeup, nextDeadline: ContinuousClock.Instant?) {
        machine.withLock { machine in (Wakeup(machine.expire(at: now)), machine.nextDeadline) }
    }

    /// Everything up to `revision` passed. Returns the waiters to wake.
    func advance(to revision: Int64) -> Wakeup {
        Wakeup(
            machine.withLock { machine in
                let waiters = machine.advance(to: revision)
                // Under the lock, so that the atomic moves in the machine's order.
                passed.store(machine.reached, ordering: .releasing)
                return waiters
            })
    }

    /// `revisions` will never pass; their writers receive `error`. Returns the waiters to wake.
    func lose(_ revisions: ClosedRange<Int64>, because error: WireError) -> Wakeup {
        Wakeup(machine.withLock { $0.lose(revisions, because: error) })
    }

    /// Nothing will pass any more (the state closed). Returns every waiter to wake.
    func close() -> Wakeup {
        Wakeup(machine.withLock { $0.close() })
    }

    /// The error the writer of the change at `revision` receives, if it is lost.
    func loss(of revision: Int64) -> WireError? {
        machine.withLock { $0.loss(of: revision) }
    }
}
