import Observatory
import ObservatoryWire

/// Writes batched per event-loop turn, and the two rules of docs/protocol.md's
/// "Durability" that they keep.
///
/// A session's write (`apply`) is planned and applied in memory under the store's
/// lock, and its records go to storage's buffer instead of the log
/// (`Storage.buffer`). At the end of every turn each event loop calls
/// `writeBatch()`: whichever loop comes first claims every unwritten change and
/// its buffered records under the lock (`WriteClaimMachine`), writes them in one
/// `write(2)` once the lock is released, and retakes the lock to announce the
/// changes, in revision order, or to take them all back if the write failed.
/// The changes between the last written revision and the last applied one are
/// *unwritten*. One write is in flight at a time, so the log keeps revision
/// order; changes applied meanwhile wait for the next claim, which the claimant
/// makes before it leaves, so a loop whose turn ends during a write leaves its
/// changes to that claimant and goes on.
///
/// **1. No reader sees a change before `write(2)` has taken it** (so `kill -9`
/// cannot take back anything seen), and, under `always`, no reply or event
/// before fsync has:
/// - A write's reply carries its version; the connection sends it only once
///   storage acknowledges that revision. The durability machine acknowledges only
///   written revisions (`appended`, after the batch's `write(2)`), or, under
///   `always`, synced ones.
/// - Events are sent to observers and kept in the history for resuming only
///   once written (the claimant announces them after the write); connections
///   then hold them, like replies, until acknowledged.
/// - Every read looks only at a state with nothing unwritten and no claimed
///   change in flight (`withWrittenState`, `observe`, `withFrozenState`, through
///   `whenAllowed`): it waits for the write in flight, holding no lock, or claims
///   and writes the unwritten changes itself, then looks in the hold of the lock
///   that found everything written. So a `get`, `list`, `observe` snapshot,
///   resumed replay, the `revision` of `ping` and `hello`, or a compaction
///   snapshot never shows an unwritten change. (Under a steady stream of writes a
///   reader may write more than once before it finds that hold: each round writes
///   what was applied during the one before.)
/// - A write that answers from the state without making a change (a duplicate
///   `requestId`, an equal value) or fails on it (`conflict`, `not_found`,
///   `limit_exceeded`) could name an unwritten version: it is planned again on a
///   written state (`carryOut`). Its error or reply then only names written changes.
/// - A write whose records go to the log before it is applied (outside loops, the
///   store's own `set`, `delete`, `batch`, expiry and session ends) claims an
///   *append* on a written state: no other change is made until its `write(2)`
///   ended (sessions' writes wait for it), so the state it was planned on holds
///   and, if the write fails, its change alone is not made. Reads go on meanwhile:
///   its change is not in the state yet.
///
/// **2. A change storage refuses is not made**: its writer gets an error and no
/// reader sees it.
/// - A change refused before it is applied (storage failed, refusing or closed)
///   throws `internal` to its writer, as an appended one does.
/// - A batch whose `write(2)` fails is cut back from the log, and the store takes
///   back every change of it and every change applied while it was in flight
///   (`takeBack`: each key gets its previous entry again, newest first, and the
///   revision returns to the last written one) in the hold of the lock that
///   ends the claim: by rule 1 nobody has seen them (readers waited for the
///   claim), and nothing read after shows them. Their replies wait for revisions the machine marks lost and never
///   acknowledges (`batchWriteFailed`), so each writer is answered with the error
///   instead.
/// - Storage then refuses every change until the server restarts: a later change
///   would take a lost revision's number, and a queued reply to the lost change
///   could then be sent as if it were made; a duplicate `requestId` of a lost
///   change would be answered as made (the store refuses those too, and memory
///   still remembers the ids, so no snapshot of it is written any more:
///   `DurabilityMachine.allowsSnapshots`). A restart reads back the log, which
///   holds the written changes only. (Taking the numbers of the lost changes out of
///   use, and letting connections look for lost revisions before acknowledged
///   ones, would let writes resume once storage recovers instead.)
extension SharedStore {
    /// Starts batching the writes of sessions per event-loop turn, and returns
    /// what the loops call at the end of every turn; `nil` without storage.
    func batchWritesPerTurn() -> (@Sendable () -> Void)? {
        guard storage != nil else { return nil }
        guarded.withLock { $0.batchesWrites = true }
        return { [weak self] in self?.writeBatch() }
    }

    /// Writes the changes buffered since the last turn and announces them (or,
    /// if the write fails, takes them back); leaves them to the claimant of a
    /// write in flight, which writes them before it leaves.
    func writeBatch() {
        whenAllowed(.endOfTurn) { _ in }
    }

    /// Runs `body` on the state once every change in it is written.
    func withWrittenState<Result>(_ body: (Guarded) -> Result) -> Result {
        whenAllowed(.read) { body($0) }
    }

    /// Runs `body` on a copy of the state (for a snapshot) with no lock held,
    /// while no change is made: the copy is taken in an exclusive hold, which
    /// claims an append for the time `body` runs (it starts the log that
    /// follows the copy). Reads go on meanwhile; changes wait.
    func withFrozenState<Result>(
        _ body: (FrozenState) throws(StorageError) -> Result
    ) throws(StorageError) -> Result {
        // A snapshot holds written changes only: one that is taken back must not be in it.
        let frozen = whenAllowed(.exclusive) { guarded in
            guarded.claims.appendStarting()
            return FrozenState(
                view: guarded.data.view, revision: guarded.data.revision, history: guarded.history,
                appliedWrites: guarded.data.appliedWrites)
        }
        defer {
            let woken = withStoreLock { $0.claims.appendFinished() }
            for semaphore in woken { semaphore.signal() }
        }
        return try body(frozen)
    }

    /// What a write left to do after a hold of the lock that did not answer it.
    private enum WriteStep {
        /// Its answer might name unwritten changes, or it needs an append while
        /// writes are in flight: planned again on a written state.
        case planAgain
        /// Planned on a written state with an append claimed: its records go to
        /// the log with no lock held, then it is applied.
        case append
    }

    /// Plans a write (or a batch) and carries it out under both rules: a
    /// `batched` plan that makes a change, within a loop turn, is applied at
    /// once and its records buffered (`buffer`); any other plan (no change, a
    /// failure, or a write outside loops) is planned on a written state with no
    /// write in flight, so its answer names written changes only and, if it has
    /// records, they are appended before it is applied (`apply`).
    ///
    /// The plan is handed on, never copied, and the hold that answers returns
    /// the reply alone: the common case costs what one plain hold of the lock did.
    /// Inlined into `write` and `batch`, so that their closures are too.
    @inline(__always)
    func carryOut<Plan: StorePlan>(
        batched: Bool, _ plan: (StoreState) throws(WireError) -> Plan,
        buffer: (consuming Plan, inout Guarded) -> ReplyPayload,
        apply: (consuming Plan, inout Guarded) -> ReplyPayload
    ) throws(WireError) -> ReplyPayload {
        guard storage != nil else {
            // In memory only, nothing is ever unwritten or appended: no claim to look at.
            return try withStoreLock { guarded throws(WireError) in try apply(plan(guarded.data), &guarded) }
        }
        var purpose: Claims.Purpose = batched ? .buffer : .exclusive
        while true {
            var step = WriteStep.planAgain
            // Boxed: the common case, which never appends, keeps one empty reference aside, not a plan.
            var appending: AppendingPlan<Plan>?
            var answer = try whenAllowed(purpose) { guarded throws(WireError) -> ReplyPayload? in
                let planned: Plan
                do throws(WireError) {
                    planned = try plan(guarded.data)
                } catch {
                    if guarded.claims.isWritten { throw error }
                    return nil
                }
                if batched, guarded.batchesWrites, let storage, let revision = planned.revision {
                    do throws(StorageError) {
                        try planned.buffer(in: storage, revision: revision)
                    } catch {
                        throw Self.notMade(error)
                    }
                    return buffer(consume planned, &guarded)
                }
                guard guarded.claims.isIdle else { return nil }
                guard storage != nil, planned.needsPersisting else {
                    // A duplicate's answer may name a change that was taken back.
                    if let refusal = storage?.refusal { throw Self.notMade(refusal) }
                    return apply(consume planned, &guarded)
                }
                guarded.claims.appendStarting()
                step = .append
                appending = AppendingPlan(planned)
                return nil
            }
            if let answer = answer.take() { return answer }
            switch step {
            case .planAgain:
                purpose = .exclusive
            case .append:
                guard let planned = appending.take()?.plan, let storage else {
                    preconditionFailure("an append is claimed with a plan, only with storage")
                }
                return try appendClaimed(planned.records, to: storage) { guarded, failure throws(WireError) in
                    if let failure { throw Self.notMade(failure) }
                    return apply(planned, &guarded)
                }
            }
        }
    }
}

/// A plan kept aside while its records are appended.
private final class AppendingPlan<Plan> {
    let plan: Plan

    init(_ plan: consuming Plan) {
        self.plan = plan
    }
}

/// A write or a batch that `StoreState` planned, as the store carries it out.
protocol StorePlan {
    /// The revision its change (or changes) take, if it makes any.
    var revision: Int64? { get }
    /// Whether storage has anything to hold for it.
    var needsPersisting: Bool { get }
    /// What storage must hold before it is applied.
    var records: [StorageRecord] { get }
    /// Keeps `records` in storage's buffer for the next write claim, at `revision`.
    func buffer(in storage: Storage, revision: Int64) throws(StorageError)
}

extension StorePlan {
    func buffer(in storage: Storage, revision: Int64) throws(StorageError) {
        try storage.buffer(records, revision: revision)
    }
}

extension PlannedWrite: StorePlan {
    var revision: Int64? { change?.version }

    /// A change without a `requestId` (the common write) is framed straight from
    /// its fields; any other plan keeps its `records`.
    func buffer(in storage: Storage, revision: Int64) throws(StorageError) {
        guard let change, applied == nil else { return try storage.buffer(records, revision: revision) }
        try storage.buffer(change, expiry: stored?.entry.expiry)
    }
}

extension PlannedBatch: StorePlan {}
