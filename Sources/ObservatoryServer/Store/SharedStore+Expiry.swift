import ObservatoryWire

// Expiring keys (docs/protocol.md, "Expiring keys"): the store deletes them
// when the server's expiry timer asks, a bounded slice at a time.
extension SharedStore {
    /// Deletes the expiring keys due at `now` (milliseconds since 1970), at most
    /// `limit` of them, earliest first, each announced as a delete by the author
    /// of the write that set its expiry, with reason `expired`.
    ///
    /// The slice's records go to storage in one write before any of it is
    /// applied; when storage refuses them, nothing is deleted and the keys stay
    /// scheduled.
    ///
    /// - Returns: how many keys were deleted, and the storage failure, if any.
    @discardableResult
    func expireDue(now: Int64 = KeyExpiry.wallMilliseconds(), limit: Int = 1_000) -> (
        expired: Int, failure: WireError?
    ) {
        guard let next = nextExpiry, next <= now else { return (0, nil) }
        let outcome = deleteOwn(
            { data in
                guard let next = data.nextExpiry, next <= now else { return [] }
                return data.planExpiry(now: now, limit: limit)
            },
            refused: { guarded, planned in
                for write in planned {
                    if let key = write.change?.key { guarded.data.reschedule(key) }
                }
            })
        return (outcome.made, outcome.failure)
    }

    /// The earliest time (milliseconds since 1970) an expiring key may be due, if any key expires.
    var nextExpiry: Int64? {
        guarded.withLock { $0.data.nextExpiry }
    }
}
