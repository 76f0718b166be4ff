import ObservatoryWire

// A `batch` on the local store: planned on a written state, then stored and
// applied (or, within a loop turn, applied and buffered).
extension SharedStore {
    /// Applies `operations` as one batch by `author`, all or nothing: its changes
    /// take one revision, go to storage as one record (written before anyone sees
    /// them), and are announced in the order of the operations, with no other
    /// change between them: they are applied in one hold of the store's lock,
    /// after the record was appended (`carryOut`).
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
        return try carryOut(
            batched: batched,
            { data throws(WireError) in try data.planBatch(operations, requestId: requestId, by: author, now: now) },
            buffer: { planned, guarded in
                // One per change, as `apply` returns them (a restarted clock makes none): the
                // entry each replaces, as planned in this hold of the lock (a batch names a key once).
                let previous = planned.writes.compactMap { $0.change == nil ? nil : Optional($0.replaced?.entry) }
                let (changes, payload) = guarded.data.apply(planned)
                for (change, previous) in zip(changes, previous) {
                    guarded.claims.buffered(UnwrittenChange(change: change, author: author, previous: previous))
                }
                return payload
            },
            apply: { planned, guarded in
                let (changes, payload) = guarded.data.apply(planned)
                for change in changes { publish(change, from: author, in: &guarded) }
                return payload
            })
    }
}
