/// Where a probe of `EntryTable` for a key ended (`EntryTable.locate`): the key's
/// slot, or the free slot a new entry of it takes. A write planned on the table
/// carries it to its applying, which then skips the second probe.
///
/// It holds while no slot of the table is written: it names how many writes the
/// table had seen (`writes`), and the table ignores it once that count moved on
/// (another write applied in between), so that a stale slot is never used. A
/// slot names a place in one table: it is applied to the table it was found in.
struct EntrySlot: Sendable, Equatable {
    /// The slot's index in its key's shard.
    let index: Int
    /// The table's count of slot writes when the slot was found.
    let writes: Int

    /// No slot: the key is looked up when the write is applied. No count of
    /// writes is negative and no index is, so the table never takes it for a slot.
    static let unknown = EntrySlot(index: -1, writes: -1)
}
