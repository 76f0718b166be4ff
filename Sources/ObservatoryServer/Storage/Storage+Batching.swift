import Dispatch
import ObservatoryWire

// Batching: the changes of one event-loop turn written in one `write(2)`.
extension Storage {
    /// What writing the buffer did.
    enum BatchOutcome {
        /// `write(2)` took every taken record (if there were any); run `waiters`
        /// once the changes are announced.
        case written(waiters: RevisionGate.Wakeup)
        /// The write failed and was cut back: the taken changes, and those
        /// buffered meanwhile, are lost to their writers and storage refuses
        /// changes until the server restarts; the caller takes the changes back,
        /// then runs `waiters`.
        case failed(StorageError, waiters: RevisionGate.Wakeup)
    }

    /// The buffered records the store's write claim took, to write once the
    /// locks are released.
    struct TakenBuffer {
        /// The framed records.
        var bytes: [UInt8]
        /// The revision of the last change among them.
        let revision: Int64
    }

    /// Keeps the records of one change, at `revision`, for the next write claim
    /// (the caller holds the store's lock and applies the change next). A
    /// `changeTime` equal to the one before it in the buffer is left out: a time
    /// holds until the next, and each buffer, written whole or not at all, starts
    /// with one.
    ///
    /// - Throws: `StorageError` when storage takes no change (failed, refusing or
    ///   closed); then nothing of the records stays.
    func buffer(_ records: [StorageRecord], revision: Int64) throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            try checkAcceptsChanges(state)
            for record in records {
                if case .changeTime(let at) = record {
                    if at == state.bufferedChangeTime { continue }
                    state.bufferedChangeTime = at
                }
                RecordFraming.append(record, to: &state.buffered)
            }
            state.bufferedRevision = revision
        }
    }

    /// Keeps the records of one change (an update or a delete), at its version,
    /// for the next write claim, as `buffer(_:revision:)` keeps
    /// `change.storageRecords(expiry:)`: the same bytes, framed straight into
    /// the buffer from the change's fields, with no record built.
    ///
    /// - Throws: `StorageError` when storage takes no change; then nothing of it stays.
    func buffer(_ change: StoreChange, expiry: KeyExpiry?) throws(StorageError) {
        try state.withLock { state throws(StorageError) in
            try checkAcceptsChanges(state)
            let at = change.at
            if at != state.bufferedChangeTime {
                state.bufferedChangeTime = at
                StorageRecord.appendChangeTime(at, to: &state.buffered)
            }
            change.appendRecord(expiry: expiry, to: &state.buffered)
            state.bufferedRevision = change.version
        }
    }

    /// Takes every buffered record out, for the store's write claim (under the
    /// store's lock, in the hold that claims the changes they hold).
    func takeBuffered() -> TakenBuffer {
        state.withLock { state in
            var bytes: [UInt8] = []
            swap(&bytes, &state.buffered)
            state.bufferedChangeTime = nil
            return TakenBuffer(bytes: bytes, revision: state.bufferedRevision)
        }
    }

    /// Writes what `takeBuffered()` took in one `write(2)`, with no lock held (the
    /// store's claim is the only one in flight, so the log keeps revision order),
    /// and tells the durability machine. On failure, the records buffered
    /// meanwhile are dropped too: their changes, applied after the taken ones,
    /// are taken back with them. Under `always`, a loop ending its turn
    /// (`syncing`) fsyncs them itself once its claim ended (`syncTurn`);
    /// another writer (a reader that found them unwritten) leaves that to the
    /// syncer thread, so a read never waits for the disk.
    func writeBuffered(_ taken: inout TakenBuffer, syncing: Bool = false) -> BatchOutcome {
        guard !taken.bytes.isEmpty else { return .written(waiters: RevisionGate.Wakeup()) }
        let revision = taken.revision
        let writerSyncs = syncing && options.fsync == .always
        let (outcome, compact) = writeToLog(&taken.bytes, kind: .batch, keepsMemory: true) {
            state, failure -> (BatchOutcome, Bool) in
            if let failure {
                logger.error(
                    "storage: \(failure.message); the batch was not made, changes are refused until a restart")
                let through = state.buffered.isEmpty ? revision : max(revision, state.bufferedRevision)
                state.buffered.removeAll(keepingCapacity: true)
                state.bufferedChangeTime = nil
                let wake = carryOut(state.durability.batchWriteFailed(through: through, failure.message), &state)
                return (.failed(failure, waiters: wake), false)
            }
            let now = state.durability.isSyncing ? DispatchTime.now().uptimeNanoseconds : 0
            let wake = carryOut(state.durability.appended(through: revision, at: now, writerSyncs: writerSyncs), &state)
            return (.written(waiters: wake), claimCompactionIfDue(&state))
        }
        if compact { startCompaction() }
        return outcome
    }

    /// Under `always`, fsyncs everything written so far, as the write in flight
    /// (so no descriptor is closed under it and no other write starts
    /// meanwhile), and tells the durability machine; returns the gate's
    /// waiters to run. Called by the loop that ends its turn, after its write
    /// claim ended (readers and sessions' writes on other loops do not wait for
    /// it) and before it flushes: the turn's replies then pass the gate, with
    /// no thread woken. If another fsync runs, nothing is done here: that one
    /// wakes the syncer when it ends, which covers this batch.
    func syncTurn() -> RevisionGate.Wakeup {
        guard options.fsync == .always else { return RevisionGate.Wakeup() }
        let started: SyncWork?
        do {
            started = try beginWrite { state throws(StorageError) -> SyncWork? in syncStarting(&state) }
        } catch {
            // Not reached: the closure refuses nothing, so the write in flight was marked.
            return RevisionGate.Wakeup()
        }
        guard let work = started else { return endWrite { _ in RevisionGate.Wakeup() } }
        let failure = synchronize(work.files)
        return endWrite { state in finishSync(work, failure: failure, &state) }
    }

    /// Why storage refuses changes until the server restarts, if it does: a
    /// duplicate's answer may name a change that was taken back, so none is given.
    var refusal: StorageError? {
        state.withLock { state in
            guard state.durability.refusal != nil, let reason = state.durability.refusalReason else { return nil }
            return StorageError(code: .unavailable, message: reason)
        }
    }
}
