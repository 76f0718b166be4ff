import ObservatoryWire

// A `batch` on the local store: planned, stored and applied in one step under the lock.
extension SharedStore {
    /// Applies `operations` as one batch by `author`, all or nothing: its changes
    /// take one revision, go to storage as one record (written before anyone sees
    /// them), and are announced in the order of the operations, with no other
    /// change between them, since all of it happens under the store's lock.
    ///
    /// With `batched`, as for a session's single writes, the record joins the
    /// others of this event-loop turn in storage's buffer, and the changes are
    /// announced once it is written (`SharedStore+Batching.swift`).
    ///
    /// - Returns: the `batch` reply's fields.
    /// - Throws: the first failing operation's error with its `index`, or
    ///   `internal` when storage refuses the batch (none of it is made then).
    @discardableResult
    public func batch(_ operations: [BatchOperation<EncodedJSON>], requestId: String? = nil, by author: Author)
        throws(WireError) -> ReplyPayload
    {
        try batch(operations, requestId: requestId, by: author, batched: false)
    }

    func batch(_ operations: [BatchOperation<EncodedJSON>], requestId: String?, by author: Author, batched: Bool)
        throws(WireError) -> ReplyPayload
    {
        let expires = operations.contains {
            if case .set(_, _, _, _, .some) = $0 { return true }
            return false
        }
        // The clock is read when a requestId is remembered or a key's expiry is set.
        let now = expires ? AppliedWrites.wallMilliseconds() : Self.wallMilliseconds(requestId)
        return try withStoreLock { guarded throws(WireError) in
            let planned = try planOnWrittenState(&guarded, batched: batched, makesChange: { $0.revision != nil }) {
                data throws(WireError) in
                try data.planBatch(operations, requestId: requestId, by: author, now: now)
            }
            guard let storage else { return announce(planned, by: author, in: &guarded) }
            let isBuffered: Bool
            do throws(StorageError) {
                if batched, let revision = planned.revision {
                    let outcome = try storage.buffer(planned.records, revision: revision)
                    isBuffered = outcome.isBuffered
                    guarded.wakeup += outcome.wakeup
                } else {
                    isBuffered = false
                    if planned.needsPersisting {
                        guarded.wakeup += try storage.append(planned.records)
                    } else if let refusal = storage.refusal {
                        throw refusal
                    }
                }
            } catch {
                throw Self.notMade(error)
            }
            guard isBuffered else { return announce(planned, by: author, in: &guarded) }
            // One per change, as `apply` returns them (a restarted clock makes none).
            let previous = planned.writes.compactMap { $0.change.map { guarded.data.entry($0.key) } }
            let (changes, payload) = guarded.data.apply(planned)
            for (change, previous) in zip(changes, previous) {
                guarded.unwritten.append(UnwrittenChange(change: change, author: author, previous: previous))
            }
            return payload
        }
    }

    /// Applies a planned batch and announces its changes at once.
    private func announce(_ planned: consuming PlannedBatch, by author: Author, in guarded: inout Guarded)
        -> ReplyPayload
    {
        let (changes, payload) = guarded.data.apply(planned)
        for change in changes { publish(change, from: author, in: &guarded) }
        return payload
    }
}
