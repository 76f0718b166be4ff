import Observatory
import ObservatoryWire

/// Writes batched per event-loop turn, and the two rules of docs/protocol.md's
/// "Durability" that they keep.
///
/// A session's write (`apply`) is planned and applied in memory under the store's
/// lock, and its records go to storage's buffer instead of the log
/// (`Storage.buffer`). At the end of every turn each event loop calls
/// `writeBatch()`: whichever loop comes first writes everything buffered in one
/// `write(2)`, and the store then announces the changes, in revision order, or
/// takes them all back if the write failed. The changes between the last written
/// revision and the last applied one are *unwritten*.
///
/// **1. No reader sees a change before `write(2)` has taken it** (so `kill -9`
/// cannot take back anything seen), and, under `always`, no reply or event
/// before fsync has:
/// - A write's reply carries its version; the connection sends it only once
///   storage acknowledges that revision. The durability machine acknowledges only
///   written revisions (`appended`, after the batch's `write(2)`), or, under
///   `always`, synced ones.
/// - Events are sent to observers and kept in the history for resuming only
///   once written (`writeUnwritten` announces them after the write); connections
///   then hold them, like replies, until acknowledged.
/// - Every read writes what is unwritten first, under the same lock, before it
///   looks (`withWrittenState`, `observe`, `withFrozenState`): a `get`, `list`,
///   `observe` snapshot, resumed replay, the `revision` of `ping` and `hello`, or
///   a compaction snapshot never shows an unwritten change.
/// - A write that answers from the state without making a change (a duplicate
///   `requestId`, an equal value) or fails on it (`conflict`, `not_found`,
///   `limit_exceeded`) could name an unwritten version: it is planned again once
///   the buffer is written (`planOnWrittenState`). Its error or reply then only
///   names written changes.
///
/// **2. A change storage refuses is not made**: its writer gets an error and no
/// reader sees it.
/// - A change refused before it is applied (storage failed, refusing or closed)
///   throws `internal` to its writer, as an appended one does.
/// - A batch whose `write(2)` fails is cut back from the log, and the store takes
///   back every change of it (`takeBack`: each key gets its previous entry again,
///   newest first, and the revision returns to the last written one) while it
///   still holds the lock: by rule 1 nobody has seen them, and nothing read after
///   shows them. Their replies wait for revisions the machine marks lost and never
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
        guard let storage else { return nil }
        storage.startBatching()
        return { [weak self] in self?.writeBatch() }
    }

    /// Writes the changes buffered since the last turn and announces them (or,
    /// if the write fails, takes them back).
    func writeBatch() {
        withStoreLock { writeUnwritten(&$0) }
    }

    /// Runs `body` on the state once every change in it is written.
    func withWrittenState<Result>(_ body: (Guarded) -> Result) -> Result {
        withStoreLock { guarded in
            writeUnwritten(&guarded)
            return body(guarded)
        }
    }

    func withFrozenState<Result>(
        _ body: (FrozenState) throws(StorageError) -> Result
    ) throws(StorageError) -> Result {
        try withStoreLock { guarded throws(StorageError) in
            // A snapshot holds written changes only: one that is taken back must not be in it.
            writeUnwritten(&guarded)
            return try body(
                FrozenState(
                    view: guarded.data.view, revision: guarded.data.revision, history: guarded.history,
                    appliedWrites: guarded.data.appliedWrites))
        }
    }

    /// Plans a write (or a batch) so that its answer names written changes only: a
    /// write that is not batched, or whose plan makes no change (`makesChange`) or
    /// fails while changes are unwritten, is planned (again) once they are written.
    func planOnWrittenState<Plan>(
        _ guarded: inout Guarded, batched: Bool, makesChange: (Plan) -> Bool,
        _ plan: (StoreState) throws(WireError) -> Plan
    ) throws(WireError) -> Plan {
        if !batched { writeUnwritten(&guarded) }
        do {
            let planned = try plan(guarded.data)
            if makesChange(planned) || guarded.unwritten.isEmpty { return planned }
        } catch {
            if guarded.unwritten.isEmpty { throw error }
        }
        writeUnwritten(&guarded)
        return try plan(guarded.data)
    }

    /// Applies a planned change whose records storage keeps for the end of the
    /// turn; it is announced once they are written.
    func buffer(
        _ planned: consuming PlannedWrite, by author: Author, in storage: Storage, _ guarded: inout Guarded
    ) throws(WireError) -> ReplyPayload {
        guard let version = planned.change?.version else { return planned.payload }
        let isBuffered: Bool
        do {
            let outcome = try storage.buffer(planned.records, revision: version)
            isBuffered = outcome.isBuffered
            guarded.wakeup += outcome.wakeup
        } catch {
            throw Self.notMade(error)
        }
        let previous = isBuffered ? planned.change.flatMap { guarded.data.entry($0.key) } : nil
        let (change, payload) = guarded.data.apply(planned)
        guard let change else { return payload }
        if isBuffered {
            guarded.unwritten.append(UnwrittenChange(change: change, author: author, previous: previous))
        } else {
            publish(change, from: author, in: &guarded)
        }
        return payload
    }

    /// Writes the buffered records of the unwritten changes, then announces the
    /// changes; if the write fails, takes them back. Under the lock; the revision
    /// gate's waiters this wakes run once it is released (`withStoreLock`).
    func writeUnwritten(_ guarded: inout Guarded) {
        guard !guarded.unwritten.isEmpty, let storage else { return }
        let unwritten = guarded.unwritten
        guarded.unwritten.removeAll(keepingCapacity: true)
        switch storage.writeBuffered() {
        case .written(let waiters):
            for change in unwritten { publish(change.change, from: change.author, in: &guarded) }
            guarded.wakeup += waiters
        case .failed(_, let waiters):
            takeBack(unwritten, &guarded)
            guarded.wakeup += waiters
        }
    }

    /// Undoes `unwritten` (oldest first, never announced), newest first: each key
    /// gets its previous entry back, and the revision the last written one.
    private func takeBack(_ unwritten: [UnwrittenChange], _ guarded: inout Guarded) {
        guard let first = unwritten.first else { return }
        let lastWritten = first.change.version - 1
        for change in unwritten.reversed() {
            let undo: ClusterChange =
                change.previous.map { .set($0) }
                ?? .delete(key: change.change.key, version: lastWritten, author: nil)
            if let planned = guarded.data.planReplicated(undo) { guarded.data.apply(planned) }
        }
        guarded.data.advanceRevision(to: lastWritten)
    }
}
