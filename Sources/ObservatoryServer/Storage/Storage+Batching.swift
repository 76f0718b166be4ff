import Dispatch

// Batching: the changes of one event-loop turn written in one `write(2)`.
extension Storage {
    /// What writing the buffer did.
    enum BatchOutcome {
        /// `write(2)` took every buffered record (if there were any); run `waiters`
        /// once the changes are announced.
        case written(waiters: RevisionGate.Wakeup)
        /// The write failed and was cut back: the buffered changes are lost to their
        /// writers and storage refuses changes until the server restarts; the
        /// caller takes the changes back, then runs `waiters`.
        case failed(StorageError, waiters: RevisionGate.Wakeup)
    }

    /// Makes the store's batched writes wait in the buffer until `writeBuffered()`,
    /// which the event loops call at the end of every turn. Before this, and
    /// without loops (tests, tools), every change is written as it is made.
    func startBatching() {
        state.withLock { $0.batchesWrites = true }
    }

    /// Keeps the records of one change, at `revision`, for the next `writeBuffered()`
    /// (the caller holds the store's lock and applies the change next); or writes
    /// them at once when storage does not batch. A `changeTime` equal to the one
    /// before it in the buffer is left out: a time holds until the next, and each
    /// buffer, written whole or not at all, starts with one.
    ///
    /// - Returns: whether the records wait in the buffer (else they are written),
    ///   and the revision gate's waiters an immediate write woke, for the caller
    ///   to run once it released the store's lock.
    /// - Throws: `StorageError` when storage takes no change (failed, refusing or
    ///   closed), or an immediate write failed; then nothing of the records stays.
    func buffer(
        _ records: [StorageRecord], revision: Int64
    ) throws(StorageError) -> (isBuffered: Bool, wakeup: RevisionGate.Wakeup) {
        let isBuffered = try state.withLock { state throws(StorageError) -> Bool in
            guard state.batchesWrites else { return false }
            try checkAcceptsChanges(state)
            for record in records {
                if case .changeTime(let at) = record {
                    if at == state.bufferedChangeTime { continue }
                    state.bufferedChangeTime = at
                }
                RecordFraming.append(record, to: &state.buffered)
            }
            state.bufferedRevision = revision
            return true
        }
        guard isBuffered else { return (false, try append(records)) }
        return (true, RevisionGate.Wakeup())
    }

    /// Writes every buffered record in one `write(2)` (the caller holds the store's
    /// lock, so nothing is buffered meanwhile), and tells the durability machine.
    func writeBuffered() -> BatchOutcome {
        let (outcome, compact) = state.withLock { state -> (BatchOutcome, Bool) in
            guard !state.buffered.isEmpty else { return (.written(waiters: RevisionGate.Wakeup()), false) }
            // Taken out while it is written, then emptied and put back: the next turn
            // reuses its memory, unless one turn made it large.
            var bytes: [UInt8] = []
            swap(&bytes, &state.buffered)
            state.bufferedChangeTime = nil
            defer {
                bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
                state.buffered = bytes
            }
            let revision = state.bufferedRevision
            do throws(StorageError) {
                try write(bytes, into: &state, kind: .batch)
            } catch {
                let reason = error.message
                logger.error("storage: \(reason); the batch was not made, changes are refused until a restart")
                let wake = carryOut(state.durability.batchWriteFailed(through: revision, error.message), &state)
                return (.failed(error, waiters: wake), false)
            }
            let now = state.durability.isSyncing ? DispatchTime.now().uptimeNanoseconds : 0
            let wake = carryOut(state.durability.appended(through: revision, at: now), &state)
            return (.written(waiters: wake), claimCompactionIfDue(&state))
        }
        if compact { startCompaction() }
        return outcome
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
