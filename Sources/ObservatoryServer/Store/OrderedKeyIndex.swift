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
///
/// Beside each key sits its `KeyPrefix` (its first 16 bytes as one integer), in
/// one element (`Slot`), so that the searches compare integers and read a key's
/// bytes only when two prefixes are equal, and an insert moves one run of
/// elements. The prefixes of the chunks' first keys (`heads`) sit in
/// one array of their own, so the search for a key's chunk reads that array
/// alone, not every chunk it passes.
struct OrderedKeyIndex: Sendable {
    private static let chunkCapacity = 128
    private var chunks: [[Slot]] = []
    /// The prefix of each chunk's first key, chunk for chunk.
    private var heads: [KeyPrefix] = []
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
            sorted[$0..<min($0 + Self.chunkCapacity / 2, sorted.count)].map(Slot.init)
        }
        heads = chunks.map { $0[0].prefix }
        count = sorted.count
    }

    /// Adds `key`, which must not be in the index yet.
    mutating func insert(_ key: String) {
        count += 1
        let slot = Slot(key)
        guard !chunks.isEmpty else {
            chunks = [Self.chunk(of: CollectionOfOne(slot))]
            heads = [slot.prefix]
            return
        }
        let (chunk, position) = location(of: key, prefix: slot.prefix)
        chunks[chunk].insertByMoving(slot, at: position)
        if position == 0 { heads[chunk] = slot.prefix }
        if chunks[chunk].count > Self.chunkCapacity {
            let half = Self.chunkCapacity / 2
            chunks.insert(Self.chunk(of: chunks[chunk][half...]), at: chunk + 1)
            chunks[chunk].removeSubrange(half...)
            heads.insert(chunks[chunk + 1][0].prefix, at: chunk + 1)
        }
    }

    /// Removes `key`, which must be in the index.
    mutating func remove(_ key: String) {
        guard !chunks.isEmpty else { return }
        let (chunk, position) = location(of: key, prefix: KeyPrefix(key))
        guard position < chunks[chunk].count, StoreKey.sameBytes(chunks[chunk][position].key, key) else { return }
        chunks[chunk].remove(at: position)
        count -= 1
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            heads.remove(at: chunk)
        } else if position == 0 {
            heads[chunk] = chunks[chunk][0].prefix
        }
    }

    /// A new chunk holding `elements`, with room for a full chunk and the one
    /// insert that splits it, so that it never grows its storage.
    private static func chunk<Element>(of elements: some Collection<Element>) -> [Element] {
        var chunk: [Element] = []
        chunk.reserveCapacity(chunkCapacity + 1)
        chunk.append(contentsOf: elements)
        return chunk
    }

    /// Calls `body` with the keys that start with `prefix` and come after `after`
    /// (if given), in byte order, until `body` returns false.
    func forEach(withPrefix prefix: String, after: String? = nil, _ body: (String) -> Bool) {
        let start = after.map { StoreKey.byteOrder(prefix, $0) ? $0 : prefix } ?? prefix
        guard !chunks.isEmpty else { return }
        var (chunk, position) = location(of: start, prefix: KeyPrefix(start))
        while chunk < chunks.count {
            let slots = chunks[chunk]
            while position < slots.count {
                let key = slots[position].key
                position += 1
                if let after, !StoreKey.byteOrder(after, key) { continue }
                guard key.utf8.starts(with: prefix.utf8) else { return }
                guard body(key) else { return }
            }
            chunk += 1
            position = 0
        }
    }

    /// Where `key` (whose prefix is `prefix`) is or would go: the last chunk
    /// whose first key is not after it, and the first position in that chunk
    /// whose key is not before it.
    ///
    /// Both searches compare prefixes alone, and read keys' bytes only within a
    /// run of equal prefixes, which keys that differ in their first 16 bytes
    /// never make.
    private func location(of key: String, prefix: KeyPrefix) -> (chunk: Int, position: Int) {
        // Chunks are never empty, and `heads` has one prefix per chunk.
        let (chunk, tied) = heads.withUnsafeBufferPointer { heads -> (Int, Bool) in
            let notAfter = Self.end(of: prefix, in: heads)
            guard notAfter > 0 else { return (0, false) }
            return (notAfter - 1, heads[notAfter - 1] == prefix)
        }
        guard !tied else { return locationAmongEqualHeads(of: key, prefix: prefix, through: chunk) }
        return (chunk, position(of: key, prefix: prefix, in: chunk))
    }

    /// `location`, when the head of `last`, the last chunk whose head is not
    /// after `prefix`, equals it: the chunks with that head are told apart by
    /// their first keys' bytes.
    private func locationAmongEqualHeads(of key: String, prefix: KeyPrefix, through last: Int) -> (Int, Int) {
        var (low, high) = (heads.withUnsafeBufferPointer { Self.start(of: prefix, in: $0) }, last + 1)
        // The first chunk of the run whose first key comes after `key`.
        while low < high {
            let middle = (low + high) / 2
            if StoreKey.byteOrder(key, chunks[middle][0].key) { high = middle } else { low = middle + 1 }
        }
        let chunk = max(low - 1, 0)
        return (chunk, position(of: key, prefix: prefix, in: chunk))
    }

    /// The first position in `chunk` whose key is not before `key`.
    private func position(of key: String, prefix: KeyPrefix, in chunk: Int) -> Int {
        chunks[chunk].withUnsafeBufferPointer { slots in
            let start = Self.start(of: prefix, in: slots)
            guard start < slots.count, slots[start].prefix == prefix else { return start }
            // Among the keys with an equal prefix (positions start..<end), by their bytes.
            var (low, high) = (start, Self.end(of: prefix, in: slots))
            while low < high {
                let middle = (low + high) / 2
                if StoreKey.byteOrder(slots[middle].key, key) { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }

    /// The first index of `sorted` whose prefix is not before `prefix`.
    private static func start(of prefix: KeyPrefix, in sorted: UnsafeBufferPointer<some Prefixed>) -> Int {
        var (low, high) = (0, sorted.count)
        while low < high {
            let middle = (low &+ high) &>> 1
            if sorted[middle].prefix < prefix { low = middle &+ 1 } else { high = middle }
        }
        return low
    }

    /// The first index of `sorted` whose prefix is after `prefix`.
    private static func end(of prefix: KeyPrefix, in sorted: UnsafeBufferPointer<some Prefixed>) -> Int {
        var (low, high) = (0, sorted.count)
        while low < high {
            let middle = (low &+ high) &>> 1
            if prefix < sorted[middle].prefix { high = middle } else { low = middle &+ 1 }
        }
        return low
    }
}

extension OrderedKeyIndex {
    /// The first 16 bytes of a key, big-endian and padded with zero bytes, as one
    /// 128-bit integer: when two prefixes differ, their order is their keys' byte
    /// order; when they are equal, the keys' bytes decide (they share 16 bytes, or
    /// one is the other followed by zero bytes).
    struct KeyPrefix: Comparable, Sendable {
        private let value: UInt128

        init(_ key: String) {
            var key = key
            // The first bytes, up to 16, copied over zeros and read as two big-endian words.
            var words: (UInt64, UInt64) = (0, 0)
            key.withUTF8 { bytes in
                withUnsafeMutableBytes(of: &words) { words in
                    words.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes).prefix(16)))
                }
            }
            value = UInt128(UInt64(bigEndian: words.0)) << 64 | UInt128(UInt64(bigEndian: words.1))
        }

        static func < (lhs: KeyPrefix, rhs: KeyPrefix) -> Bool {
            lhs.value < rhs.value
        }
    }

    /// A key and its prefix, as a chunk holds them.
    fileprivate struct Slot: Sendable {
        let prefix: KeyPrefix
        let key: String

        init(_ key: String) {
            prefix = KeyPrefix(key)
            self.key = key
        }
    }
}

/// What the searches of `OrderedKeyIndex` look at: a prefix, alone or beside its key.
private protocol Prefixed {
    var prefix: OrderedKeyIndex.KeyPrefix { get }
}

extension OrderedKeyIndex.KeyPrefix: Prefixed {
    fileprivate var prefix: OrderedKeyIndex.KeyPrefix { self }
}

extension OrderedKeyIndex.Slot: Prefixed {}

extension Array {
    /// Inserts `element` at `position` by moving the later elements up in one
    /// `memmove`: `insert(_:at:)` goes through the general `replaceSubrange`,
    /// which costs several times as much for one element.
    fileprivate mutating func insertByMoving(_ element: Element, at position: Int) {
        append(element)
        withUnsafeMutableBufferPointer { elements in
            let last = elements.count - 1
            guard position < last, let base = elements.baseAddress else { return }
            let moved = (base + last).move()
            (base + position + 1).moveInitialize(from: base + position, count: last - position)
            (base + position).initialize(to: moved)
        }
    }
}
