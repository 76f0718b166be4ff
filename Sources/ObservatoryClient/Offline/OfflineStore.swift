/// What the client keeps on disk for its mirrors, as a plain value: one
/// ``OfflineEntry`` per mirrored key, and how they become a file of at most
/// `limit` bytes.
///
/// The policy when the entries do not fit (``image(limit:)``): first the
/// values of keys without an unacknowledged write go, least recently changed
/// first (such a key starts from its default after a restart, until the
/// snapshot comes); if that is not enough, the newest writes go with their
/// keys (they are still sent while the process lives, just not kept across a
/// restart). The file shell reports both on the client's `errors`.
struct OfflineStore {
    /// A file's bytes and what had to be left out of it to fit the cap.
    struct Image {
        /// The whole file.
        var bytes: [UInt8]
        /// Keys whose values were left out (they had no unacknowledged write).
        var evicted: [String] = []
        /// Keys whose unacknowledged writes were left out.
        var unkeptWrites: [String] = []
    }

    /// The entries, by key.
    private(set) var entries: [String: OfflineEntry] = [:]
    /// The count that orders changes, for eviction.
    private var changes: UInt64 = 0

    /// An empty store.
    init() {}

    /// A store holding what a file held.
    init(entries loaded: [OfflineEntry]) {
        for entry in loaded { entries[entry.key] = entry }
        changes = loaded.map(\.order).max() ?? 0
    }

    /// The entry of `key`, if one is kept.
    func entry(for key: String) -> OfflineEntry? { entries[key] }

    /// Keeps `entry` as the latest state of its key.
    mutating func record(_ entry: OfflineEntry) {
        changes += 1
        var entry = entry
        entry.order = changes
        entries[entry.key] = entry
    }

    /// Forgets `key`.
    mutating func remove(_ key: String) {
        entries[key] = nil
    }

    /// The file for the entries, at most `limit` bytes when that can be done
    /// by leaving entries out (see the policy above); when not even an empty
    /// store fits, the empty store.
    func image(limit: Int) -> Image {
        var kept = entries.values.sorted { $0.order < $1.order }.map { ($0, OfflineStoreFormat.encode($0)) }
        var entryBytes = kept.reduce(0) { $0 + $1.1.count }
        func size() -> Int { OfflineStoreFormat.fileSize(entryBytes: entryBytes, count: kept.count) }
        var evicted: [String] = []
        var unkeptWrites: [String] = []
        // Values without writes go first, oldest first.
        var index = 0
        while size() > limit && index < kept.count {
            if kept[index].0.write == nil {
                evicted.append(kept[index].0.key)
                entryBytes -= kept.remove(at: index).1.count
            } else {
                index += 1
            }
        }
        // Then the newest writes.
        while size() > limit, let newest = kept.popLast() {
            unkeptWrites.append(newest.0.key)
            entryBytes -= newest.1.count
        }
        return Image(
            bytes: OfflineStoreFormat.file(encodedEntries: kept.map(\.1)), evicted: evicted, unkeptWrites: unkeptWrites)
    }
}
