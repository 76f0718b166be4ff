import ObservatoryWire

/// A write that `StoreState` checked and has not applied yet: the change it makes,
/// the `requestId` it remembers, its reply, and the records storage must hold
/// before it is applied.
///
/// Planning and applying are separate steps so that the state stays a plain value:
/// the store persists `records` first and applies the write only if that worked,
/// so a change storage refuses is never made.
struct PlannedWrite {
    /// The change, or `nil` when the write changes nothing (an equal value, a duplicate).
    let change: StoreChange?
    /// The write to remember under its `requestId`, if it carried one and is not a duplicate.
    let applied: AppliedWrite?
    /// The reply's fields.
    let payload: ReplyPayload
    /// The key it writes, hashed once for planning and applying; `nil` for a
    /// write that only answers (a duplicate).
    let key: EntryKey?
    /// The entry afterwards, boxed as the table keeps it; `nil` for a delete and
    /// for a write that changes nothing, unless it restarts an expiring key's
    /// clock (`restartsExpiry`).
    let stored: StoredEntry?
    /// The entry it replaces (`nil` when the key does not exist yet): the box
    /// itself, which costs one reference count to keep.
    let replaced: StoredEntry?
    /// How the store's bytes (`Footprint`) change when it is applied.
    let byteChange: Int

    /// A write that changes nothing and remembers nothing: a duplicate's answer.
    init(answer payload: ReplyPayload) {
        self.init(change: nil, applied: nil, payload: payload, key: nil, entry: nil, replaced: nil, byteChange: 0)
    }

    init(
        change: StoreChange?, applied: AppliedWrite?, payload: ReplyPayload, key: EntryKey?, entry: StoredEntry?,
        replaced: StoredEntry?, byteChange: Int
    ) {
        self.byteChange = byteChange
        self.change = change
        self.applied = applied
        self.payload = payload
        self.key = key
        self.stored = entry
        self.replaced = replaced
    }

    /// The entry afterwards (see `stored`).
    var entry: RawValueEntry? {
        stored?.entry
    }

    /// Whether storage has anything to hold for it.
    var needsPersisting: Bool {
        change != nil || applied != nil || restartsExpiry
    }

    /// Whether it changes nothing but restarts the clock of an expiring key
    /// (an equal value set with `ttl`): `entry` then holds the new expiry.
    var restartsExpiry: Bool {
        change == nil && stored?.entry.expiry != nil
    }

    /// What storage must hold before the write is applied: the change's record
    /// (or a restarted expiry's), then its `requestId`, in one write.
    var records: [StorageRecord] {
        var records = change?.storageRecords(expiry: entry?.expiry) ?? []
        if restartsExpiry, let entry, let expiry = entry.expiry {
            records.append(.expiry(key: entry.key, expiry))
        }
        return records + (applied.map { [.appliedWrite($0)] } ?? [])
    }
}
