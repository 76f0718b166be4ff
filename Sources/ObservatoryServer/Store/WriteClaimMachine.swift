/// Who writes the store's unwritten changes to storage's log, and who waits
/// for that write, as a plain value: the rules that let `write(2)` run with no
/// lock held while the log keeps revision order and no reader sees an
/// unwritten change (`SharedStore+Batching.swift`).
///
/// The store keeps it under its lock. A thread that took the lock says what it
/// wants (`access`), and the machine answers: go on in this hold of the lock,
/// wait for the write in flight, or write. Only one write is in flight at a time,
/// claimed in one of two ways:
/// - A *buffered* claim takes every unwritten change (in revision order, with
///   storage's buffered bytes, which the store takes in the same hold). While it
///   is in flight, writes of sessions go on applying and buffering changes;
///   they wait for the next claim. Its claimant ends it (`written`), announces
///   its changes, and then looks again (`access(.endOfTurn)`, holding no claim,
///   once its deliveries are sent) and claims what was applied meanwhile, unless
///   another thread did; so no change is stranded: a loop whose turn ends while a
///   claim is in flight leaves its changes to that claimant.
/// - An *append* claim (`appendStarting`) is made with nothing unwritten, by a
///   write whose records go to the log before it is applied (the store's own
///   writes, expiry, session ends): no other change is made until it ends, so
///   the state it was planned on holds and a failed append fails its change only.
///
/// A reader waits for a buffered claim (the state holds changes being written)
/// but not for an append (its change is not applied yet); a write of a session
/// waits for an append only. A thread that waits is handed back to the shell
/// (`Waiter`) and woken when the claim ends.
struct WriteClaimMachine<Change, Waiter> {
    /// What a thread that holds the store's lock is about to do.
    enum Purpose: Equatable {
        /// Look at the state (a read, an observation's snapshot, a ping's
        /// revision): it must hold no unwritten change.
        case read
        /// Apply a change whose records join storage's buffer (a session's write
        /// within a loop turn).
        case buffer
        /// Plan on a written state with no write in flight, and possibly claim an
        /// append; or copy the state for a snapshot that starts a new log.
        case exclusive
        /// End a loop turn: have the unwritten changes written.
        case endOfTurn
    }

    /// What the thread does next.
    enum Access {
        /// Go on, in this hold of the lock.
        case now
        /// A claim in flight forbids it: register a waiter (`wait`), release the
        /// lock, and ask again once woken.
        case wait
        /// This thread claimed `changes`: take storage's buffered bytes in this
        /// hold, write them once the lock is released, report `written` or
        /// `writeFailed`, and ask again.
        case write([Change])
    }

    /// What ends a buffered claim's write.
    struct Finish {
        /// Whether changes were applied while it was in flight: its claimant
        /// looks again once it announced its own.
        var hasUnwritten = false
        /// After a failed write: the changes applied while it was in flight,
        /// oldest first, which are taken back with the claimed ones.
        var takenBack: [Change] = []
        /// The waiters to wake once the lock is released.
        var wake: [Waiter] = []
    }

    /// The kind of the claim in flight.
    enum Claim: Equatable {
        case buffered
        case append
    }

    /// The changes applied and buffered, not claimed yet, oldest first.
    private(set) var unwritten: [Change] = []
    /// The claim in flight, if one is.
    private(set) var inFlight: Claim?
    /// The threads waiting for the claim in flight to end.
    private var waiters: [Waiter] = []

    /// Whether the state holds only written changes: nothing unwritten, no
    /// buffered claim in flight.
    var isWritten: Bool {
        unwritten.isEmpty && inFlight != .buffered
    }

    /// Whether nothing is unwritten and no write is in flight.
    var isIdle: Bool {
        unwritten.isEmpty && inFlight == nil
    }

    // MARK: Inputs

    /// Whether `purpose` may go on at once, with nothing to wait for or write
    /// (the common case, asked first: `access` answers `.now` exactly then).
    func allows(_ purpose: Purpose) -> Bool {
        switch purpose {
        case .buffer: inFlight != .append
        case .endOfTurn: inFlight != nil || unwritten.isEmpty
        case .read: inFlight != .buffered && unwritten.isEmpty
        case .exclusive: isIdle
        }
    }

    /// A thread holding the lock wants to do `purpose`.
    mutating func access(_ purpose: Purpose) -> Access {
        if allows(purpose) { return .now }
        switch purpose {
        case .buffer:
            return inFlight == .append ? .wait : .now
        case .endOfTurn:
            // A claimant in flight looks again before it leaves.
            return inFlight == nil ? claimUnwritten() : .now
        case .read:
            if inFlight == .buffered { return .wait }
            return claimUnwritten()
        case .exclusive:
            return inFlight == nil ? claimUnwritten() : .wait
        }
    }

    /// After `.wait`: `waiter` is woken when the claim in flight ends.
    mutating func wait(_ waiter: Waiter) {
        precondition(inFlight != nil, "a thread waits only for a claim in flight")
        waiters.append(waiter)
    }

    /// A change was applied and its records buffered, after `access(.buffer)`
    /// (or in an exclusive hold).
    mutating func buffered(_ change: Change) {
        precondition(inFlight != .append, "no change is made while an append is in flight")
        unwritten.append(change)
    }

    /// The buffered claim's write succeeded (its changes are announced): the
    /// claim ends. A claimant never holds a claim while its deliveries run: a
    /// handler that reads or writes the store would wait for it.
    mutating func written() -> Finish {
        precondition(inFlight == .buffered, "only a buffered claim is written")
        var finish = end()
        finish.hasUnwritten = !unwritten.isEmpty
        return finish
    }

    /// The buffered claim's write failed (storage refuses changes from now on):
    /// the claim ends, and what was applied meanwhile is taken back too.
    mutating func writeFailed() -> Finish {
        precondition(inFlight == .buffered, "only a buffered claim fails")
        let takenBack = takeUnwritten()
        var finish = end()
        finish.takenBack = takenBack
        return finish
    }

    /// This thread, in an exclusive hold, claims an append: it writes its
    /// records once the lock is released, then applies (or drops) its plan.
    mutating func appendStarting() {
        precondition(isIdle, "an append is claimed on a written state with no write in flight")
        inFlight = .append
    }

    /// The append in flight ended, written or not: returns the waiters to wake.
    mutating func appendFinished() -> [Waiter] {
        precondition(inFlight == .append && unwritten.isEmpty, "no change is made while an append is in flight")
        return end().wake
    }

    // MARK: Rules

    private mutating func claimUnwritten() -> Access {
        guard !unwritten.isEmpty else { return .now }
        inFlight = .buffered
        return .write(takeUnwritten())
    }

    private mutating func takeUnwritten() -> [Change] {
        var taken: [Change] = []
        swap(&taken, &unwritten)
        return taken
    }

    private mutating func end() -> Finish {
        inFlight = nil
        var wake: [Waiter] = []
        swap(&wake, &waiters)
        return Finish(wake: wake)
    }
}
