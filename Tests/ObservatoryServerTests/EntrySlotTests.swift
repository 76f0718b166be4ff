import ObservatoryWire
import Testing

@testable import ObservatoryServer

@Suite struct EntrySlotTests {
    private func stored(_ key: EntryKey, version: Int64) -> StoredEntry {
        StoredEntry(
            RawValueEntry(
                key: key.text, value: EncodedJSON(.integer(version)), version: version, author: "a", session: "s"),
            key: key)
    }

    /// Two keys whose probes start at the same slot of the same shard (a new
    /// shard has 32 slots, and the hash's top 10 bits pick one of 1,024 shards).
    private func collidingKeys() -> (EntryKey, EntryKey) {
        var seen: [Int: EntryKey] = [:]
        for index in 0... {
            let key = EntryKey("k.\(index)")
            let place = Int(truncatingIfNeeded: UInt(bitPattern: key.hash) >> (UInt.bitWidth - 10)) << 5 | key.hash & 31
            if let earlier = seen[place] { return (earlier, key) }
            seen[place] = key
        }
        preconditionFailure("the loop ends at the first collision")
    }

    @Test func aWriteAtTheSlotItsPlanFoundCreatesReplacesAndRemoves() {
        var table = EntryTable()
        let key = EntryKey("k")
        let (missing, free) = table.locate(key)
        #expect(missing == nil)
        table.set(stored(key, version: 1), for: key, at: free)
        #expect(table.count == 1)
        let (found, slot) = table.locate(key)
        #expect(found?.entry.version == 1)
        table.set(stored(key, version: 2), for: key, at: slot, found: found)
        #expect(table.count == 1)
        #expect(table[key]?.entry.version == 2)
        let (replaced, replacedSlot) = table.locate(key)
        table.set(nil, for: key, at: replacedSlot, found: replaced)
        #expect(table.count == 0)
        #expect(table[key] == nil)
    }

    @Test func aSlotFoundBeforeAnotherWriteIsNotUsed() {
        let (first, second) = collidingKeys()
        var table = EntryTable()
        table.set(stored(first, version: 1), for: first)
        // The second key's probe passes the first key's slot and ends at the next one.
        let stale = table.locate(second).slot
        // Removing the first key frees the slot where the second key's probe now ends.
        table.set(nil, for: first)
        table.set(stored(second, version: 2), for: second, at: stale)
        #expect(table[second]?.entry.version == 2)
        #expect(table.count == 1)
    }

    @Test func aSlotHoldingAnotherKeyIsNotTakenForThisKeysSlot() {
        let (first, second) = collidingKeys()
        // Misused: the first key's slot, still current, handed to a write of the
        // second key, once with the first key's box and once as a free slot.
        for handsOverTheBox in [true, false] {
            var table = EntryTable()
            table.set(stored(first, version: 1), for: first, at: .unknown)
            let (found, slot) = table.locate(first)
            table.set(stored(second, version: 2), for: second, at: slot, found: handsOverTheBox ? found : nil)
            #expect(table.count == 2)
            #expect(table[first]?.entry.version == 1)
            #expect(table[second]?.entry.version == 2)
        }
    }
}
