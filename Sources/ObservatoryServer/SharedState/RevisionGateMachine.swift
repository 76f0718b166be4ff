import ObservatoryWire

/// The rules of the revision gate as a plain value: how far revisions have
/// passed the gate, which revisions never will (lost, with the error their
/// writers receive), and who waits for which revision.
///
/// Inputs are the revision advancing (storage wrote or synced it, per the fsync
/// policy that `DurabilityMachine` applies; a cluster node's watch applied it),
/// revisions being lost, a wait being requested, and the gate closing. Each
/// returns the waiters to wake, which the caller runs after releasing the lock
/// that guards the machine; the machine itself runs nothing.
///
/// Waiters wake in revision order, and, for one revision, in the order they
/// came. A wait for a revision that has passed, is lost, or comes after the
/// gate closed is answered at once (returned to the caller to run).
struct RevisionGateMachine {
    /// Someone waiting for `revision` to pass or be lost.
    struct Waiter {
        /// The revision it waits for.
        let revision: Int64
        /// What to run once that revision passed or was lost (or the gate closed).
        let action: @Sendable () -> Void
    }

    /// Revisions that will never pass, and what their writers are told.
    struct Loss {
        /// The lost revisions.
        let revisions: ClosedRange<Int64>
        /// The error the writer of each of them receives instead of its reply.
        let error: WireError
    }

    /// Replies to writes and events up to this revision may go out.
    private(set) var reached: Int64
    /// Whether the gate closed: nothing waits any more.
    private(set) var isClosed = false
    /// The lost revisions, in the order they were lost.
    private(set) var losses: [Loss] = []
    /// The waiters, sorted by revision; equal revisions in arrival order.
    private var waiting: [Waiter] = []

    /// A gate that everything up to `revision` has passed (`.max`: everything,
    /// for state kept in memory only).
    init(reached revision: Int64) {
        reached = revision
    }

    /// How many wait.
    var waiterCount: Int { waiting.count }

    // MARK: Inputs

    /// Someone waits for `revision`: returns it to run now if the revision has
    /// passed or is lost or the gate closed, else keeps it and returns nothing.
    mutating func wait(for revision: Int64, _ action: @escaping @Sendable () -> Void) -> [Waiter] {
        let waiter = Waiter(revision: revision, action: action)
        if isClosed || revision <= reached || loss(of: revision) != nil { return [waiter] }
        waiting.insert(waiter, at: firstIndex(after: revision))
        return []
    }

    /// Everything up to `revision` passed: returns the waiters for revisions up
    /// to it, oldest revision first. A revision behind `reached` changes nothing.
    mutating func advance(to revision: Int64) -> [Waiter] {
        guard revision > reached else { return [] }
        reached = revision
        let end = firstIndex(after: revision)
        defer { waiting.removeFirst(end) }
        return Array(waiting[..<end])
    }

    /// `revisions` will never pass: their writers receive `error`. Returns the
    /// waiters for them, oldest revision first.
    mutating func lose(_ revisions: ClosedRange<Int64>, because error: WireError) -> [Waiter] {
        losses.append(Loss(revisions: revisions, error: error))
        let start = firstIndex(after: revisions.lowerBound - 1)
        let end = firstIndex(after: revisions.upperBound)
        defer { waiting.removeSubrange(start..<end) }
        return Array(waiting[start..<end])
    }

    /// The gate closes (the state closed): returns every waiter; later waits are answered at once.
    mutating func close() -> [Waiter] {
        isClosed = true
        defer { waiting = [] }
        return waiting
    }

    // MARK: Questions

    /// The error the writer of the change at `revision` receives, if it is lost.
    func loss(of revision: Int64) -> WireError? {
        losses.first { $0.revisions.contains(revision) }?.error
    }

    /// The index of the first waiter for a revision above `revision`.
    private func firstIndex(after revision: Int64) -> Int {
        var low = 0
        var high = waiting.count
        while low < high {
            let middle = (low + high) / 2
            if waiting[middle].revision <= revision { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
