/// The store's keys in the order of their UTF-8 bytes, so that `list` and prefix
/// snapshots find their keys in O(log n + k) instead of scanning and sorting
/// every key.
///
/// Keys live in sorted chunks of at most `chunkCapacity`: finding a key is a
/// binary search over the chunks' first keys and then within one chunk; adding
/// or removing one moves at most a chunk's worth of references. A copy is cheap
/// (one array of chunk references), so a reader can take one under the store's
/// lock and walk it after releasing the lock while writers go on; a writer then
/// copies the chunk array once, and only the chunk it changes.
struct OrderedKeyIndex: Sendable {
    private static let chunkCapacity = 512
    private var chunks: [[String]] = []
    /// The number of keys.
    private(set) var count = 0

    init() {}

    /// Builds the index of `keys` (in any order) at once.
    init(_ keys: some Sequence<String>) {
        self.init(sortedKeys: keys.sorted(by: StoreKey.byteOrder))
    }

    /// Builds the index of keys already in byte order, without duplicates, in O(n).
    init(sortedKeys sorted: [String]) {
        chunks = stride(from: 0, to: sorted.count, by: Self.chunkCapacity / 2).map {
            Array(sorted[$0..<min($0 + Self.chunkCapacity / 2, sorted.count)])
        }
        count = sorted.count
    }

    /// Adds `key`, which must not be in the index yet.
    mutating func insert(_ key: String) {
        count += 1
        guard !chunks.isEmpty else {
            chunks = [[key]]
            return
        }
        let chunk = chunkIndex(for: key)
        let position = Self.insertionPoint(of: key, in: chunks[chunk])
        chunks[chunk].insert(key, at: position)
        if chunks[chunk].count > Self.chunkCapacity {
            let upper = Array(chunks[chunk][(Self.chunkCapacity / 2)...])
            chunks[chunk].removeSubrange((Self.chunkCapacity / 2)...)
            chunks.insert(upper, at: chunk + 1)
        }
    }

    /// Removes `key`, which must be in the index.
    mutating func remove(_ key: String) {
        guard !chunks.isEmpty else { return }
        let chunk = chunkIndex(for: key)
        let position = Self.insertionPoint(of: key, in: chunks[chunk])
        guard position < chunks[chunk].count, chunks[chunk][position].utf8.elementsEqual(key.utf8) else { return }
        chunks[chunk].remove(at: position)
        count -= 1
        if chunks[chunk].isEmpty { chunks.remove(at: chunk) }
    }

    /// Calls `body` with the keys that start with `prefix` and come after `after`
    /// (if given), in byte order, until `body` returns false.
    func forEach(withPrefix prefix: String, after: String? = nil, _ body: (String) -> Bool) {
        let start = after.map { StoreKey.byteOrder(prefix, $0) ? $0 : prefix } ?? prefix
        guard !chunks.isEmpty else { return }
        var chunk = chunkIndex(for: start)
        var position = Self.insertionPoint(of: start, in: chunks[chunk])
        while chunk < chunks.count {
            let keys = chunks[chunk]
            while position < keys.count {
                let key = keys[position]
                position += 1
                if let after, !StoreKey.byteOrder(after, key) { continue }
                guard key.utf8.starts(with: prefix.utf8) else { return }
                guard body(key) else { return }
            }
            chunk += 1
            position = 0
        }
    }

    /// The chunk whose range holds `key`: the last chunk whose first key is not after it.
    private func chunkIndex(for key: String) -> Int {
        var low = 0
        var high = chunks.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if StoreKey.byteOrder(key, chunks[middle][0]) {
                high = middle
            } else {
                low = middle
            }
        }
        return low
    }

    /// The first position in `keys` whose key is not before `key`.
    private static func insertionPoint(of key: String, in keys: [String]) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if StoreKey.byteOrder(keys[middle], key) {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }
}
