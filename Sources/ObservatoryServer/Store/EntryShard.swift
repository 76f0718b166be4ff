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

    /// Puts `entry` in `key`'s place (`nil` removes it) and returns what was there.
    @discardableResult
    mutating func set(_ entry: StoredEntry?, for key: EntryKey) -> StoredEntry? {
        if let index = slot(of: key) {
            let previous = slots[index]
            if let entry {
                slots[index] = entry
            } else {
                remove(at: index)
            }
            return previous
        }
        guard let entry else { return nil }
        if (count + 1) * 4 > slots.count * 3 { grow() }
        slots[freeSlot(for: entry.hash)] = entry
        count += 1
        return nil
    }

    /// Calls `body` with every entry, in no particular order.
    func forEach(_ body: (StoredEntry) throws -> Void) rethrows {
        for case let entry? in slots { try body(entry) }
    }

    /// Makes room for `capacity` entries without growing again.
    mutating func reserveCapacity(_ capacity: Int) {
        var size = max(slots.count, 8)
        while capacity * 4 > size * 3 { size *= 2 }
        if size > slots.count { rebuild(size: size) }
    }

    /// The slot that holds `key`'s entry, if any.
    private func slot(of key: EntryKey) -> Int? {
        guard !slots.isEmpty else { return nil }
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var index = key.hash & mask
            while let entry = slots[index] {
                if key.matches(entry) { return index }
                index = (index + 1) & mask
            }
            return nil
        }
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

    private mutating func grow() {
        rebuild(size: max(8, slots.count * 2))
    }

    private mutating func rebuild(size: Int) {
        let old = slots
        slots = [StoredEntry?](repeating: nil, count: size)
        for case let entry? in old { slots[freeSlot(for: entry.hash)] = entry }
    }
}
