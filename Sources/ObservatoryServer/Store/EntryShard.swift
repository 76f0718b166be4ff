/// One shard of `EntryTable`: the entries of the keys whose hashes pick it, in
/// an open-addressing table (linear probing) of entry boxes.
///
/// A lookup hashes nothing: it starts at the slot the key's hash (`EntryKey`)
/// names and compares hashes before bytes. Removing shifts the entries after
/// the freed slot back, so no tombstones pile up. The table grows by doubling
/// when three quarters full, rehashing from the hashes the boxes carry.
struct EntryShard: Sendable {
    /// The slots, a power of two of them (none before the first entry).
    private var slots: [StoredEntry?] = []
    /// The number of entries.
    private(set) var count = 0

    /// The entry of `key`, if it is here.
    func entry(_ key: EntryKey) -> StoredEntry? {
        guard let index = slot(of: key) else { return nil }
        return slots[index]
    }

    /// The entry of `key`, if it is here, and where its probe ended: its slot,
    /// or the free slot a new entry of it would take (`set(_:for:probed:)`).
    func locate(_ key: EntryKey) -> (entry: StoredEntry?, index: Int) {
        let (index, found) = probe(for: key)
        return (found ? slots[index] : nil, index)
    }

    /// Puts `entry` in `key`'s place (`nil` removes it) and returns what was there.
    ///
    /// One probe finds the key's slot or, when it is not here, the free slot where
    /// the probe stopped, which is where a new entry goes (unless the table grows).
    /// `probed` is where an earlier probe for the key (`locate`) ended, while no
    /// slot has changed since (`EntryTable` keeps count), and `expected` the entry
    /// it found there (`nil`: a free slot): that slot is taken without probing
    /// again once it is seen to hold that very box, or to be free.
    @discardableResult
    mutating func set(
        _ entry: StoredEntry?, for key: EntryKey, probed: Int? = nil, holding expected: StoredEntry? = nil
    ) -> StoredEntry? {
        let (index, found) = probed.flatMap { hinted(at: $0, for: key, holding: expected) } ?? probe(for: key)
        if found {
            let previous = slots[index]
            if let entry {
                slots[index] = entry
            } else {
                remove(at: index)
            }
            return previous
        }
        guard let entry else { return nil }
        if (count + 1) * 4 > slots.count * 3 {
            grow()
            slots[freeSlot(for: entry.hash)] = entry
        } else {
            slots[index] = entry
        }
        count += 1
        return nil
    }

    /// Calls `body` with every entry, in no particular order.
    func forEach(_ body: (StoredEntry) throws -> Void) rethrows {
        for case let entry? in slots { try body(entry) }
    }

    /// Makes room for `capacity` entries without growing again.
    mutating func reserveCapacity(_ capacity: Int) {
        var size = max(slots.count, Self.firstSize)
        while capacity * 4 > size * 3 { size *= 2 }
        if size > slots.count { rebuild(size: size) }
    }

    /// The slot that holds `key`'s entry, if any.
    private func slot(of key: EntryKey) -> Int? {
        let (index, found) = probe(for: key)
        return found ? index : nil
    }

    /// Where probing for `key` ends: at its entry's slot (`found`), or at the
    /// first free slot from where its hash starts (index 0 when there are no
    /// slots yet).
    private func probe(for key: EntryKey) -> (index: Int, found: Bool) {
        guard !slots.isEmpty else { return (0, false) }
        return slots.withUnsafeBufferPointer { slots in
            // `mask` keeps every index below `slots.count`; a free slot always remains (growth at 3/4).
            let mask = slots.count - 1
            var index = key.hash & mask
            while let entry = slots[index] {
                if key.matches(entry) { return (index, true) }
                index = (index + 1) & mask
            }
            return (index, false)
        }
    }

    /// Whether `index`, where a probe for `key` ended while no slot has changed
    /// since, is still its end: the slot of `found`, the very box of the key the
    /// probe found there, or, when it found none, a free slot. `nil` when it is
    /// neither, or out of range, so that the caller probes (a hint never misplaces
    /// an entry). The box is compared by identity and hash, not by its key's bytes.
    @inline(__always)
    private func hinted(at index: Int, for key: EntryKey, holding found: StoredEntry?) -> (index: Int, found: Bool)? {
        guard slots.indices.contains(index) else {
            return slots.isEmpty && index == 0 && found == nil ? (0, false) : nil
        }
        if let found { return slots[index] === found && found.hash == key.hash ? (index, true) : nil }
        return slots[index] == nil ? (index, false) : nil
    }

    /// The first free slot from where `hash` starts probing.
    private func freeSlot(for hash: Int) -> Int {
        let mask = slots.count - 1
        var index = hash & mask
        while slots[index] != nil { index = (index + 1) & mask }
        return index
    }

    /// Empties `index` and moves back the entries after it that probed past it,
    /// so that every entry stays reachable from its home slot.
    private mutating func remove(at index: Int) {
        let mask = slots.count - 1
        var hole = index
        slots[hole] = nil
        count -= 1
        var next = (hole + 1) & mask
        while let entry = slots[next] {
            let home = entry.hash & mask
            // It may move into the hole unless its home lies after the hole, up to `next`.
            if (next - home) & mask >= (next - hole) & mask {
                slots[hole] = entry
                slots[next] = nil
                hole = next
            }
            next = (next + 1) & mask
        }
    }

    /// Doubles the slots, starting at `firstSize`.
    private mutating func grow() {
        rebuild(size: max(Self.firstSize, slots.count * 2))
    }

    /// The slots of a shard's first entry: 32, so that a shard that fills up
    /// skips the rebuilds at 8 and 16 slots (a shard holds about 1/1024 of the
    /// keys; 1,024 shards of 32 slots take 256 KiB).
    private static let firstSize = 32

    /// Moves every entry into `size` new slots: each box is moved out of its old
    /// slot, not copied, so rebuilding counts no references.
    private mutating func rebuild(size: Int) {
        var old = [StoredEntry?](repeating: nil, count: size)
        swap(&old, &slots)
        for index in old.indices {
            guard let entry = old[index].take() else { continue }
            slots[freeSlot(for: entry.hash)] = consume entry
        }
    }
}
