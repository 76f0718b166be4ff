import ObservatoryWire

/// The store's entries by key, split into shards so that a copy is cheap to take
/// and cheap to keep while writers go on.
///
/// Copying the table (for a snapshot) copies one array of shards. The first
/// write to a shard afterwards copies that shard's slots alone (references to
/// entry boxes): at a million keys, about a thousand of them, a fraction of a
/// millisecond. So compaction can take a consistent copy under the store's lock
/// without stalling writers, which share the cost of the copy one shard at a time.
///
/// A key is hashed once (`EntryKey`): its high bits pick the shard, its low bits
/// the slot in it. Entries sit in boxes (`StoredEntry`), so a lookup costs one
/// reference count, not a copy of the entry.
struct EntryTable: Sendable {
    private static let shardBits = 10
    private var shards = [EntryShard](repeating: EntryShard(), count: 1 << shardBits)
    /// The number of entries.
    private(set) var count = 0
    /// How many times a slot was written (`set`, `reserveCapacity`): a slot
    /// found (`locate`) at one count is still where its key's probe ends at the same count.
    private var writes = 0

    init() {}

    /// The entry of `key`, if it exists.
    subscript(key: String) -> RawValueEntry? {
        get { self[EntryKey(key)]?.entry }
        set {
            let key = EntryKey(key)
            self[key] = newValue.map { StoredEntry($0, key: key) }
        }
    }

    /// The boxed entry of `key`, if it exists; setting `nil` removes it.
    subscript(key: EntryKey) -> StoredEntry? {
        get { shards[Self.shard(of: key.hash)].entry(key) }
        set { set(newValue, for: key) }
    }

    /// The boxed entry of `key`, if it exists, and where its probe ended, so that
    /// a write planned on it fills or frees that slot without probing again
    /// (`set(_:for:at:)`).
    func locate(_ key: EntryKey) -> (entry: StoredEntry?, slot: EntrySlot) {
        // Read in place, not copied out of the array (a copy counts a reference to
        // its slots); `shard(of:)` is below `1 << shardBits`, the number of shards.
        let (entry, index) = shards.withUnsafeBufferPointer { $0[Self.shard(of: key.hash)].locate(key) }
        return (entry, EntrySlot(index: index, writes: writes))
    }

    /// Puts `entry` in `key`'s place (`nil` removes it). `slot` and `found`, from
    /// `locate`, spare the probe when no slot was written since; otherwise the key
    /// is looked up again.
    mutating func set(
        _ entry: StoredEntry?, for key: EntryKey, at slot: EntrySlot = .unknown, found: StoredEntry? = nil
    ) {
        let probed = slot.writes == writes ? slot.index : nil
        let added = entry == nil ? 0 : 1
        let previous = shards[Self.shard(of: key.hash)].set(entry, for: key, probed: probed, holding: found)
        count += added - (previous == nil ? 0 : 1)
        writes &+= 1
    }

    /// Reserves room for `count` entries, spread over the shards (for loading).
    mutating func reserveCapacity(_ count: Int) {
        for index in shards.indices {
            shards[index].reserveCapacity(count >> Self.shardBits + 1)
        }
        writes &+= 1
    }

    /// Calls `body` with every entry, in no particular order.
    func forEach(_ body: (RawValueEntry) throws -> Void) rethrows {
        for shard in shards {
            // swift-format-ignore: ReplaceForEachWithForLoop
            // (EntryShard is not a Sequence; its forEach walks its slots in place.)
            try shard.forEach { try body($0.entry) }
        }
    }

    /// The shard of a key's hash: its high bits (the low bits pick the slot).
    private static func shard(of hash: Int) -> Int {
        Int(truncatingIfNeeded: UInt(bitPattern: hash) >> (UInt.bitWidth - shardBits))
    }
}
