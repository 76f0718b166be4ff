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
    var applied: AppliedWrite? {
        remembered?.applied
    }
    /// `applied`, in a box: writes with a `requestId` are rare, and a smaller plan
    /// is moved with a few loads and stores instead of a `memcpy`.
    private let remembered: Remembered?
    /// The reply's fields of a write that makes no change; `nil` for one that
    /// makes a change, whose reply follows from it (`payload`), so that planning
    /// a change builds no reply and applying it copies none. In a box: such
    /// writes are rare, and a plan of references alone is cheap to let go of.
    private let answer: Answer?
    /// The key it writes, hashed once for planning and applying; `EntryKey.none`
    /// for a write that only answers (a duplicate). Not optional, so that applying
    /// hands it on in place instead of copying it out of an optional.
    let key: EntryKey
    /// The entry afterwards, boxed as the table keeps it; `nil` for a delete and
    /// for a write that changes nothing, unless it restarts an expiring key's
    /// clock (`restartsExpiry`).
    let stored: StoredEntry?
    /// The entry it replaces (`nil` when the key does not exist yet): the box
    /// itself, which costs one reference count to keep.
    let replaced: StoredEntry?
    /// How the store's bytes (`Footprint`) change when it is applied.
    let byteChange: Int
    /// Where planning found the key's slot (`EntryTable.locate`), for applying to
    /// fill or free it without a second probe; `EntrySlot.unknown` to look the key up again.
    let slot: EntrySlot

    /// A write that changes nothing and remembers nothing: a duplicate's answer.
    init(answer payload: ReplyPayload) {
        self.init(
            unchanged: payload, applied: nil, key: .none, entry: nil, replaced: nil, byteChange: 0, slot: .unknown)
    }

    /// A write that makes `change`; its reply is the change's (`payload`).
    init(
        change: StoreChange, applied: AppliedWrite?, key: EntryKey, entry: StoredEntry?, replaced: StoredEntry?,
        byteChange: Int, slot: EntrySlot = .unknown
    ) {
        self.init(
            change: change, answer: nil, applied: applied, key: key, entry: entry, replaced: replaced,
            byteChange: byteChange, slot: slot)
    }

    /// A write that makes no change and answers `payload`: an equal value, which
    /// may restart an expiring key's clock (`entry`) and remember its `requestId`.
    init(
        unchanged payload: ReplyPayload, applied: AppliedWrite?, key: EntryKey, entry: StoredEntry?,
        replaced: StoredEntry?, byteChange: Int, slot: EntrySlot = .unknown
    ) {
        self.init(
            change: nil, answer: Answer(payload), applied: applied, key: key, entry: entry, replaced: replaced,
            byteChange: byteChange, slot: slot)
    }

    private init(
        change: StoreChange?, answer: Answer?, applied: AppliedWrite?, key: EntryKey, entry: StoredEntry?,
        replaced: StoredEntry?, byteChange: Int, slot: EntrySlot
    ) {
        self.byteChange = byteChange
        self.slot = slot
        self.change = change
        self.answer = answer
        remembered = applied.map(Remembered.init)
        self.key = key
        self.stored = entry
        self.replaced = replaced
    }

    /// The reply's fields: the change's (`StoreChange.replyPayload`), or the
    /// answer of a write that makes none.
    var payload: ReplyPayload {
        if let change { return change.replyPayload }
        guard let answer else { preconditionFailure("a write without a change is planned with its answer") }
        return answer.payload
    }

    /// The write a plan remembers under its `requestId`, in its box.
    private final class Remembered {
        let applied: AppliedWrite

        init(_ applied: AppliedWrite) {
            self.applied = applied
        }
    }

    /// The reply of a write that makes no change, in its box.
    private final class Answer {
        let payload: ReplyPayload

        init(_ payload: ReplyPayload) {
            self.payload = payload
        }
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
