/// What a snapshot copies from the store, taken in one step under its lock:
/// the entries, the revision, the recent changes and the remembered writes.
///
/// Every part is a copy-on-write value, so taking it costs a few reference
/// counts however large the store is; writers pay for the copy one piece at a time.
struct FrozenState: Sendable {
    let view: StoreView
    let revision: Int64
    let history: ChangeHistory
    let appliedWrites: AppliedWrites
}
