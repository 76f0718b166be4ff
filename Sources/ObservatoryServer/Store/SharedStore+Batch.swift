import ObservatoryWire

// A `batch` on the local store: planned, stored and applied in one step under the lock.
extension SharedStore {
    /// Applies `operations` as one batch by `author`, all or nothing: its changes
    /// take one revision, go to storage as one record (written before anyone sees
    /// them), and are announced in the order of the operations, with no other
    /// change between them, since all of it happens under the store's lock.
    ///
    /// - Returns: the `batch` reply's fields.
    /// - Throws: the first failing operation's error with its `index`, or
    ///   `internal` when storage refuses the batch (none of it is made then).
    @discardableResult
    public func batch(_ operations: [BatchOperation], requestId: String? = nil, by author: Author)
        throws(WireError) -> ReplyPayload
    {
        let now = Self.wallMilliseconds(requestId)
        return try guarded.withLock { guarded throws(WireError) in
            // Earlier writes buffered in this turn go first, so the batch's revision follows theirs.
            writeUnwritten(&guarded)
            let planned = try guarded.data.planBatch(operations, requestId: requestId, by: author, now: now)
            if let storage {
                do throws(StorageError) {
                    if planned.needsPersisting {
                        try storage.append(planned.records)
                    } else if let refusal = storage.refusal {
                        throw refusal
                    }
                } catch {
                    throw Self.notMade(error)
                }
            }
            let (changes, payload) = guarded.data.apply(planned)
            for change in changes { publish(change, from: author, in: &guarded) }
            return payload
        }
    }
}
