import Dispatch

// Writing to the log: one `write(2)` in flight at a time, with no lock held.
extension Storage {
    /// Appends the records of a change (or of several, in revision order) to the
    /// log in one `write(2)`, before the store applies them. The store calls it
    /// holding its append claim (`WriteClaimMachine`), so records go in revision
    /// order, and no lock. Returns once `write(2)` has taken them.
    ///
    /// - Returns: the revision gate's waiters this woke, for the caller to run
    ///   once the store announced the change.
    /// - Throws: `StorageError` when storage is failed, or the write failed; then
    ///   nothing of the records stays in the log.
    func append(_ records: [StorageRecord]) throws(StorageError) -> RevisionGate.Wakeup {
        var bytes: [UInt8] = []
        for record in records { RecordFraming.append(record, to: &bytes) }
        let revision = records.lazy.compactMap(\.revision).max()
        let (outcome, compact) = writeToLog(&bytes, kind: .change) {
            state, failure -> (Result<RevisionGate.Wakeup, StorageError>, Bool) in
            if let failure { return (.failure(failure), false) }
            // The clock is read only when the machine needs it: while an fsync runs.
            let now = state.durability.isSyncing ? DispatchTime.now().uptimeNanoseconds : 0
            let wake = carryOut(state.durability.appended(through: revision, at: now), &state)
            return (.success(wake), revision != nil && claimCompactionIfDue(&state))
        }
        if compact { startCompaction() }
        return try outcome.get()
    }

    /// Session numbers up to this one may have been handed out (read back, or recorded since).
    var sessionReservation: Int64 {
        state.withLock { $0.sessionReservation }
    }

    /// Records that session numbers up to `number` may be handed out, so a restart continues above them.
    ///
    /// The number is taken as reserved when the write starts: a new log started
    /// meanwhile (compaction) carries it in its header, since the record may land
    /// in the log it replaces. Reserving more than was handed out is harmless.
    func reserveSessions(through number: Int64) throws(StorageError) {
        var bytes = RecordFraming.framed(.sessionReservation(number))
        let failure = writeToLog(
            &bytes, kind: .sessionReservation,
            starting: { $0.sessionReservation = max($0.sessionReservation, number) },
            then: { _, failure in failure })
        if let failure { throw failure }
    }

    /// Writes `bytes` at the end of the log as the one write in flight: waits,
    /// holding no lock, while another write is in flight; checks under the lock
    /// that storage takes this `kind` of write (and runs `starting` if it does);
    /// runs `write(2)`, and on failure the truncation that cuts it back, with no
    /// lock held; then, under the lock again, counts the bytes, ends the write and
    /// runs `then` with the failure, if any (a refusal at the start included).
    ///
    /// While it is in flight the log may be replaced (compaction): the bytes then
    /// went to the retired log, whose descriptor stays open until the write ends,
    /// and are not counted in the new one. With `keepsMemory`, `bytes` is emptied
    /// and becomes the buffer again if nothing was buffered meanwhile: the next
    /// turn reuses its memory (unless one turn made it large).
    func writeToLog<Value>(
        _ bytes: inout [UInt8], kind: WriteKind, keepsMemory: Bool = false,
        starting: (inout State) -> Void = { _ in }, then: (inout State, StorageError?) -> Value
    ) -> Value {
        let log: LogFile
        let size: Int
        do {
            (log, size) = try beginWrite { state throws(StorageError) in
                try checkAccepts(kind, state)
                starting(&state)
                return (state.log, state.logSize)
            }
        } catch {
            return state.withLock { then(&$0, error) }
        }
        var failure: StorageError?
        var cutBackFailure: StorageError?
        do {
            try options.files.write(log.descriptor, bytes, path: log.path)
        } catch {
            failure = error
            do {
                try options.files.truncate(log.descriptor, to: size, path: log.path)
            } catch {
                cutBackFailure = error
            }
        }
        let count = bytes.count
        return endWrite { state in
            if let failure {
                failed(failure, cutBack: cutBackFailure, &state)
            } else if state.log === log {
                state.logSize += count
                state.logBytesSinceSnapshot += count
            }
            if keepsMemory {
                bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
                if state.buffered.isEmpty, state.buffered.capacity < bytes.capacity { swap(&state.buffered, &bytes) }
            }
            return then(&state, failure)
        }
    }

    /// Waits, holding no lock, while a write is in flight; then, under the lock,
    /// runs `starting` (which refuses the write by throwing) and marks a write in
    /// flight to the current log, until `endWrite`.
    func beginWrite<Value>(
        _ starting: (inout State) throws(StorageError) -> Value
    ) throws(StorageError) -> Value {
        var waiter: DispatchSemaphore?
        while true {
            let value = try state.withLock { state throws(StorageError) -> Value? in
                guard state.writing == nil else {
                    let semaphore = waiter ?? DispatchSemaphore(value: 0)
                    waiter = semaphore
                    state.writeWaiters.append(semaphore)
                    return nil
                }
                let value = try starting(&state)
                state.writing = state.log
                return value
            }
            if let value { return value }
            waiter?.wait()
        }
    }

    /// Ends the write in flight and runs `body`, under the lock; wakes the
    /// threads that waited for it once the lock is released.
    func endWrite<Value>(_ body: (inout State) -> Value) -> Value {
        var woken: [DispatchSemaphore] = []
        let value = state.withLock { state in
            state.writing = nil
            swap(&woken, &state.writeWaiters)
            return body(&state)
        }
        for semaphore in woken { semaphore.signal() }
        return value
    }

    /// Waits, holding no lock, until no write is in flight, then runs `body`
    /// under the lock (closing: nothing starts a write once storage is closed).
    func whenNotWriting<Value>(_ body: (inout State) -> Value) -> Value {
        let waiter = DispatchSemaphore(value: 0)
        while true {
            let value = state.withLock { state -> Value? in
                guard state.writing == nil else {
                    state.writeWaiters.append(waiter)
                    return nil
                }
                return body(&state)
            }
            if let value { return value }
            waiter.wait()
        }
    }

    /// Throws why storage takes no write of `kind` now.
    private func checkAccepts(_ kind: WriteKind, _ state: State) throws(StorageError) {
        switch kind {
        case .change: try checkAcceptsChanges(state)
        case .batch: try checkCanWrite(state, unless: state.durability.isLogDamaged)
        case .sessionReservation: try checkCanWrite(state, unless: state.durability.needsRecovery)
        }
    }

    /// A write failed and was cut back (or, if `cutBack` failed too, the log's
    /// end cannot be trusted: storage stops until a snapshot replaces it).
    private func failed(_ error: StorageError, cutBack: StorageError?, _ state: inout State) {
        if let cutBack {
            if !state.durability.needsRecovery { logFailure(cutBack) }
            // The writers of the changes lost here learn it off this lock.
            let wakeup = carryOut(state.durability.logDamaged(cutBack.message), &state)
            DispatchQueue.global().async { wakeup.run() }
        }
        logger.error("storage: \(error.message); the change was not made")
    }
}
