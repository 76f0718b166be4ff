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
    /// The entry the write replaces, if the key exists (what `apply` takes out).
    let existing: ValueEntry?
    /// The entry afterwards; `nil` for a delete.
    let entry: ValueEntry?

    /// A write that changes nothing and remembers nothing: a duplicate's answer.
    init(answer payload: ReplyPayload) {
        self.init(change: nil, applied: nil, payload: payload, existing: nil, entry: nil)
    }

    init(
        change: StoreChange?, applied: AppliedWrite?, payload: ReplyPayload, existing: ValueEntry?,
        entry: ValueEntry?
    ) {
        self.change = change
        self.applied = applied
        self.payload = payload
        self.existing = existing
        self.entry = entry
    }

    /// Whether storage has anything to hold for it.
    var needsPersisting: Bool {
        change != nil || applied != nil
    }

    /// What storage must hold before the write is applied: the change's record,
    /// then its `requestId`, in one write.
    var records: [StorageRecord] {
        (change?.storageRecords ?? []) + (applied.map { [.appliedWrite($0)] } ?? [])
    }
}
