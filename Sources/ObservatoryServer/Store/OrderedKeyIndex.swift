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
///
/// A chunk is a `Chunk`, storage of its own: an insert or a remove searches and
/// changes it in place, reached through the chunk array's storage (never copied
/// out, which would retain it and make the change copy it), and a full chunk is
/// split by moving its upper half, not by copying it.
struct OrderedKeyIndex: Sendable {
    private static let chunkCapacity = 128
    private var chunks: [Chunk] = []
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
            Self.chunk(of: sorted[$0..<min($0 + Self.chunkCapacity / 2, sorted.count)].lazy.map(Slot.init))
        }
        heads = chunks.map(\.headPrefix)
        count = sorted.count
    }

    /// Adds `key`, which must not be in the index yet.
    mutating func insert(_ key: String) {
        let slot = Slot(key)
        count += 1
        guard !chunks.isEmpty else {
            chunks = [Self.chunk(of: CollectionOfOne(slot))]
            heads = [slot.prefix]
            return
        }
        let chunk = self.chunk(for: key, prefix: slot.prefix)
        let (position, full) = chunks.withUnsafeMutableBufferPointer { chunks -> (Int, Bool) in
            if !isKnownUniquelyReferenced(&chunks[chunk]) { chunks[chunk] = chunks[chunk].copy() }
            // The array holds the chunk throughout: it is used without a retain and a release.
            return Unmanaged.passUnretained(chunks[chunk])._withUnsafeGuaranteedRef { target in
                (target.insert(slot), target.count > Self.chunkCapacity)
            }
        }
        if position == 0 { heads[chunk] = slot.prefix }
        if full { split(chunk) }
    }

    /// Removes `key`, which must be in the index.
    mutating func remove(_ key: String) {
        guard !chunks.isEmpty else { return }
        let prefix = KeyPrefix(key)
        let chunk = self.chunk(for: key, prefix: prefix)
        let (position, left) = chunks.withUnsafeMutableBufferPointer { chunks in
            if !isKnownUniquelyReferenced(&chunks[chunk]) { chunks[chunk] = chunks[chunk].copy() }
            return (chunks[chunk].remove(key, prefix: prefix), chunks[chunk].count)
        }
        guard let position else { return }
        count -= 1
        if left == 0 {
            chunks.remove(at: chunk)
            heads.remove(at: chunk)
        } else if position == 0 {
            heads[chunk] = chunks[chunk].headPrefix
        }
    }

    /// Splits the full chunk at `chunk` in two halves: the upper half is moved
    /// (not copied) into a new chunk after it.
    private mutating func split(_ chunk: Int) {
        // The chunk was just inserted into, so this index holds its one reference.
        let upper = chunks[chunk].moveOut(from: Self.chunkCapacity / 2)
        heads.insert(upper.headPrefix, at: chunk + 1)
        chunks.insert(upper, at: chunk + 1)
    }

    /// The slots a chunk's storage holds: a full chunk and the one insert that
    /// splits it, and half a chunk more, so that a chunk never grows its storage
    /// and has room on both sides of its slots (see `Chunk`).
    private static let room = chunkCapacity + 1 + chunkCapacity / 2

    /// A new chunk holding `slots`.
    private static func chunk(of slots: some Collection<Slot>) -> Chunk {
        Chunk.make(slots, capacity: room)
    }

    /// Calls `body` with the keys that start with `prefix` and come after `after`
    /// (if given), in byte order, until `body` returns false.
    ///
    /// Keys are told apart from `prefix` and `after` by their `KeyPrefix` where
    /// it decides (see `KeyPrefix.Match`), and by their bytes only where it does not.
    func forEach(withPrefix prefix: String, after: String? = nil, _ body: (String) -> Bool) {
        let start = after.map { StoreKey.byteOrder(prefix, $0) ? $0 : prefix } ?? prefix
        guard !chunks.isEmpty else { return }
        let match = KeyPrefix.Match(prefix)
        // The key not to pass until one comes after it; keys come in order, so
        // once one does, every later one does too.
        var pending = after.map { (key: $0, prefix: KeyPrefix($0)) }
        var chunk = self.chunk(for: start, prefix: KeyPrefix(start))
        var position = chunks[chunk].withSlots { Self.position(of: start, prefix: KeyPrefix(start), in: $0) }
        var going = true
        while going && chunk < chunks.count {
            chunks[chunk].withSlots { slots in
                while going && position < slots.count {
                    let slot = slots[position]
                    position += 1
                    if let after = pending {
                        guard
                            after.prefix < slot.prefix
                                || (after.prefix == slot.prefix && StoreKey.byteOrder(after.key, slot.key))
                        else { continue }
                        pending = nil
                    }
                    going = match.admits(slot) && body(slot.key)
                }
            }
            chunk += 1
            position = 0
        }
    }

    /// The chunk where `key` (whose prefix is `prefix`) is or would go: the last
    /// chunk whose first key is not after it, or the first chunk.
    ///
    /// Compares prefixes alone, and reads keys' bytes only within a run of chunks
    /// whose heads equal `prefix`, which keys that differ in their first 16 bytes
    /// never make.
    @inline(__always)
    private func chunk(for key: String, prefix: KeyPrefix) -> Int {
        // Chunks are never empty, and `heads` has one prefix per chunk.
        let (notAfter, tied) = heads.withUnsafeBufferPointer { heads -> (Int, Bool) in
            let notAfter = Self.end(of: prefix, in: heads)
            return (notAfter, notAfter > 0 && heads[notAfter - 1] == prefix)
        }
        guard tied else { return max(notAfter - 1, 0) }
        // The chunks with that head are told apart by their first keys' bytes:
        // the first of the run whose first key comes after `key`.
        var (low, high) = (heads.withUnsafeBufferPointer { Self.start(of: prefix, in: $0) }, notAfter)
        while low < high {
            let middle = (low + high) / 2
            if StoreKey.byteOrder(key, chunks[middle].headKey) { high = middle } else { low = middle + 1 }
        }
        return max(low - 1, 0)
    }

    /// The first position in `slots` whose key is not before `key`.
    @inline(__always)
    static func position(of key: String, prefix: KeyPrefix, in slots: UnsafeBufferPointer<Slot>) -> Int {
        let start = start(of: prefix, in: slots)
        guard start < slots.count, slots[start].prefix == prefix else { return start }
        // Among the keys with an equal prefix (positions start..<end), by their bytes.
        var (low, high) = (start, end(of: prefix, in: slots))
        while low < high {
            let middle = (low + high) / 2
            if StoreKey.byteOrder(slots[middle].key, key) { low = middle + 1 } else { high = middle }
        }
        return low
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
    /// A key and its prefix, as a chunk holds them.
    struct Slot: Sendable {
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

extension OrderedKeyIndex.KeyPrefix.Match {
    /// Whether the key of `slot` starts with the prefix.
    fileprivate func admits(_ slot: OrderedKeyIndex.Slot) -> Bool {
        admits(slot.key, prefix: slot.prefix)
    }
}
