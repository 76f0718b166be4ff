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
    /// The entry afterwards; `nil` for a delete and for a write that changes
    /// nothing, unless it restarts an expiring key's clock (`restartsExpiry`).
    let entry: RawValueEntry?
    /// What the write replaces: only what `apply` needs, not the old entry, which
    /// would cost a copy of its strings and value per write.
    let replaced: Replaced
    /// How the store's bytes (`Footprint`) change when it is applied.
    let byteChange: Int

    /// What a planned change replaces.
    enum Replaced {
        /// The key does not exist yet.
        case nothing
        /// The key's entry, bound to `session` if it is session-bound.
        case entry(boundTo: String?)

        init(_ existing: RawValueEntry?) {
            guard let existing else {
                self = .nothing
                return
            }
            self = .entry(boundTo: existing.ephemeral ? existing.session : nil)
        }
    }

    /// A write that changes nothing and remembers nothing: a duplicate's answer.
    init(answer payload: ReplyPayload) {
        self.init(change: nil, applied: nil, payload: payload, entry: nil, replaced: .nothing, byteChange: 0)
    }

    init(
        change: StoreChange?, applied: AppliedWrite?, payload: ReplyPayload, entry: RawValueEntry?, replaced: Replaced,
        byteChange: Int
    ) {
        self.byteChange = byteChange
        self.change = change
        self.applied = applied
        self.payload = payload
        self.entry = entry
        self.replaced = replaced
    }

    /// Whether storage has anything to hold for it.
    var needsPersisting: Bool {
        change != nil || applied != nil || restartsExpiry
    }

    /// Whether it changes nothing but restarts the clock of an expiring key
    /// (an equal value set with `ttl`): `entry` then holds the new expiry.
    var restartsExpiry: Bool {
        change == nil && entry?.expiry != nil
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
