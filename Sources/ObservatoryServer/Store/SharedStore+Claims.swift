import Dispatch
import ObservatoryWire

// The store's write claims (`WriteClaimMachine`): who writes to storage's log,
// with no lock held, and who waits for that write.
extension SharedStore {
    /// The write claims as the store keeps them: of unwritten changes, woken by semaphores.
    typealias Claims = WriteClaimMachine<UnwrittenChange, DispatchSemaphore>

    /// The changes a buffered claim took, with their records, to write once the lock is released.
    struct ClaimedWrite {
        /// The changes, oldest first.
        let changes: [UnwrittenChange]
        /// Their records, taken out of storage's buffer in the same hold of the lock.
        var buffer: Storage.TakenBuffer
    }

    /// What a hold of the lock in `whenAllowed` left to do, when `body` did not run.
    private enum Pending {
        case wait(DispatchSemaphore)
        case write(ClaimedWrite)
    }

    /// Runs `body` under the store's lock, in a hold where `purpose` may go on
    /// (`WriteClaimMachine.access`): before that, waits for a claim in flight
    /// (on a semaphore, holding no lock), or writes the unwritten changes this
    /// thread claimed and announces them (or takes them back), as often as needed.
    /// Inlined, so that `body` is too.
    @inline(__always)
    func whenAllowed<Value, Failure: Error>(
        _ purpose: Claims.Purpose, _ body: (inout Guarded) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        // The common case first, in one plain hold of the lock: nothing to wait
        // for or to write (the value comes back as it is, with no enum around it).
        var ran = false
        var value = try withStoreLock { guarded throws(Failure) -> Value? in
            guard guarded.claims.allows(purpose) else { return nil }
            ran = true
            return try body(&guarded)
        }
        var waiter: DispatchSemaphore?
        while !ran {
            var pending: Pending?
            value = try withStoreLock { guarded throws(Failure) -> Value? in
                switch guarded.claims.access(purpose) {
                case .now:
                    ran = true
                    return try body(&guarded)
                case .wait:
                    let semaphore = waiter ?? DispatchSemaphore(value: 0)
                    guarded.claims.wait(semaphore)
                    pending = .wait(semaphore)
                case .write(let changes):
                    pending = .write(claim(changes))
                }
                return nil
            }
            switch pending {
            case nil:
                break
            case .wait(let semaphore):
                waiter = semaphore
                semaphore.wait()
            case .write(let claimed):
                write(claimed, endingTurn: purpose == .endOfTurn)
            }
        }
        guard let value = value.take() else { preconditionFailure("the body ran") }
        return value
    }

    /// The claimed `changes` with their records (under the lock, in the hold that claimed them).
    private func claim(_ changes: [UnwrittenChange]) -> ClaimedWrite {
        guard let storage else { preconditionFailure("changes are unwritten only with storage") }
        return ClaimedWrite(changes: changes, buffer: storage.takeBuffered())
    }

    /// Writes a buffered claim's records with no lock held; then, under the lock
    /// again, ends the claim and announces its changes, or takes them back with
    /// every change applied meanwhile if the write failed. Before it leaves, once
    /// its deliveries are sent, looks again and writes what was applied
    /// meanwhile, unless another thread claimed it: nothing is stranded.
    /// `endingTurn`: the claimant is a loop ending its turn, which under
    /// `always` fsyncs what it wrote itself once its claims ended, before it
    /// flushes (`Storage.syncTurn`).
    private func write(_ claimed: ClaimedWrite, endingTurn: Bool) {
        guard let storage else { return }
        writeClaims(claimed, to: storage, endingTurn: endingTurn)
        if endingTurn { storage.syncTurn().run() }
    }

    /// Writes `claimed`, and what was applied meanwhile, as `write` says.
    private func writeClaims(_ claimed: ClaimedWrite, to storage: Storage, endingTurn: Bool) {
        var claimed = claimed
        while true {
            let outcome = storage.writeBuffered(&claimed.buffer, syncing: endingTurn)
            var woken: [DispatchSemaphore] = []
            let looksAgain = withStoreLock { guarded -> Bool in
                switch outcome {
                case .written(let waiters):
                    let finish = guarded.claims.written()
                    for change in claimed.changes { publish(change.change, from: change.author, in: &guarded) }
                    guarded.wakeup += waiters
                    woken = finish.wake
                    return finish.hasUnwritten
                case .failed(_, let waiters):
                    let finish = guarded.claims.writeFailed()
                    takeBack(claimed.changes + finish.takenBack, &guarded)
                    guarded.wakeup += waiters
                    woken = finish.wake
                    return false
                }
            }
            for semaphore in woken { semaphore.signal() }
            guard looksAgain else { return }
            let next = withStoreLock { guarded -> ClaimedWrite? in
                guard case .write(let changes) = guarded.claims.access(.endOfTurn) else { return nil }
                return claim(changes)
            }
            guard let next else { return }
            claimed = next
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

    /// Appends `records` to `storage` as the append this thread claimed
    /// (`WriteClaimMachine.appendStarting`), with no lock held; then, under the
    /// lock again, ends the claim and runs `then` with the failure, if any (it
    /// applies the planned change, or drops it).
    func appendClaimed<Value, Failure: Error>(
        _ records: [StorageRecord], to storage: Storage,
        _ then: (inout Guarded, StorageError?) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        var failure: StorageError?
        var wakeup = RevisionGate.Wakeup()
        do {
            wakeup = try storage.append(records)
        } catch {
            failure = error
        }
        var woken: [DispatchSemaphore] = []
        defer { for semaphore in woken { semaphore.signal() } }
        return try withStoreLock { guarded throws(Failure) in
            woken = guarded.claims.appendFinished()
            guarded.wakeup += wakeup
            return try then(&guarded, failure)
        }
    }

    /// Applies planned writes of the store's own (session ends, expiry) in
    /// order and announces each change as made by the author it names.
    func announceAll(_ planned: [PlannedWrite], _ guarded: inout Guarded) {
        for write in planned {
            let (change, _) = guarded.data.apply(write)
            if let change {
                publish(change, from: Author(name: change.author, session: change.session), in: &guarded)
            }
        }
    }

    /// Plans the store's own deletes (session ends, expiry) on a written state,
    /// appends their records in one write and applies them; when storage refuses
    /// them, none is made and `refused` undoes the plan.
    ///
    /// - Returns: how many were made, and storage's refusal, if any.
    func deleteOwn(
        _ plan: (inout StoreState) -> [PlannedWrite], refused: (inout Guarded, [PlannedWrite]) -> Void
    ) -> (made: Int, failure: WireError?) {
        let (planned, isClaimed) = whenAllowed(.exclusive) { guarded -> ([PlannedWrite], Bool) in
            let planned = plan(&guarded.data)
            guard storage != nil, !planned.isEmpty else {
                announceAll(planned, &guarded)
                return (planned, false)
            }
            guarded.claims.appendStarting()
            return (planned, true)
        }
        guard isClaimed, let storage else { return (planned.count, nil) }
        return appendClaimed(planned.flatMap(\.records), to: storage) { guarded, failure in
            if let failure {
                refused(&guarded, planned)
                return (0, Self.notMade(failure))
            }
            announceAll(planned, &guarded)
            return (planned.count, nil)
        }
    }
}
