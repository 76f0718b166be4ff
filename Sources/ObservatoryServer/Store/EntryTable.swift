import ObservatoryWire

/// The store's entries by key, split into shards so that a copy is cheap to take
/// and cheap to keep while writers go on.
///
/// Copying the table (for a snapshot) copies one array of shard references. The
/// first write to a shard afterwards copies that shard alone: at a million keys,
/// about a thousand entries, a fraction of a millisecond. So compaction can take a
/// consistent copy under the store's lock without stalling writers, which share
/// the cost of the copy one shard at a time.
struct EntryTable: Sendable {
    private static let shardCount = 1_024
    private var shards = [[StoreKey: RawValueEntry]](repeating: [:], count: shardCount)
    /// The number of entries.
    private(set) var count = 0

    init() {}

    subscript(key: String) -> RawValueEntry? {
        get {
            let storeKey = StoreKey(key)
            return shards[Self.shard(of: storeKey)][storeKey]
        }
        set {
            let storeKey = StoreKey(key)
            let shard = Self.shard(of: storeKey)
            let previous = shards[shard].updateValue(forKey: storeKey, with: newValue)
            count += (newValue == nil ? 0 : 1) - (previous == nil ? 0 : 1)
        }
    }

    /// Reserves room for `count` entries, spread over the shards (for loading).
    mutating func reserveCapacity(_ count: Int) {
        for index in shards.indices {
            shards[index].reserveCapacity(count / Self.shardCount + 1)
        }
    }

    /// Calls `body` with every entry, in no particular order.
    func forEach(_ body: (RawValueEntry) throws -> Void) rethrows {
        for shard in shards {
            for entry in shard.values {
                try body(entry)
            }
        }
    }

    private static func shard(of key: StoreKey) -> Int {
        Int(truncatingIfNeeded: key.shardHash % UInt64(shardCount))
    }
}

extension Dictionary {
    /// Sets or removes the value of `key` and returns the previous one.
    fileprivate mutating func updateValue(forKey key: Key, with value: Value?) -> Value? {
        guard let value else { return removeValue(forKey: key) }
        return updateValue(value, forKey: key)
    }
}
