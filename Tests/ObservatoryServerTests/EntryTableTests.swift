import ObservatoryWire
import Testing

@testable import ObservatoryServer

@Suite struct EntryTableTests {
    private func entry(_ key: String, version: Int64) -> RawValueEntry {
        RawValueEntry(key: key, value: EncodedJSON(.integer(version)), version: version, author: "a", session: "s")
    }

    @Test func randomSetsReplacementsAndRemovesFindEveryKeyLeft() {
        var dice = Dice(seed: 11)
        var table = EntryTable()
        var reference: [String: Int64] = [:]
        for step in 0..<60_000 {
            let key = "k.\(dice.below(20_000))"
            if dice.below(3) == 0 {
                table[key] = nil
                reference[key] = nil
            } else {
                table[key] = entry(key, version: Int64(step))
                reference[key] = Int64(step)
            }
        }
        #expect(table.count == reference.count)
        for index in 0..<20_000 {
            let key = "k.\(index)"
            #expect(table[key]?.version == reference[key])
        }
        var walked = 0
        // swift-format-ignore: ReplaceForEachWithForLoop
        // (EntryTable is not a Sequence.)
        table.forEach { entry in
            walked += 1
            #expect(reference[entry.key] == entry.version)
        }
        #expect(walked == reference.count)
    }

    @Test func equivalentKeysWithOtherBytesAreDistinct() {
        var table = EntryTable()
        table["caf\u{E9}"] = entry("caf\u{E9}", version: 1)
        table["cafe\u{301}"] = entry("cafe\u{301}", version: 2)
        #expect(table.count == 2)
        table["caf\u{E9}"] = nil
        #expect(table["caf\u{E9}"] == nil)
        #expect(table["cafe\u{301}"]?.version == 2)
    }

    @Test func aCopyIsUnchangedByLaterWrites() {
        var table = EntryTable()
        for index in 0..<3_000 { table["k.\(index)"] = entry("k.\(index)", version: 1) }
        let copy = table
        for index in 0..<3_000 where index % 2 == 0 { table["k.\(index)"] = nil }
        table["k.1"] = entry("k.1", version: 2)
        #expect(copy.count == 3_000)
        #expect(copy["k.0"]?.version == 1)
        #expect(copy["k.1"]?.version == 1)
        #expect(table.count == 1_500)
        #expect(table["k.1"]?.version == 2)
    }

    @Test func aReservedTableHoldsWhatItIsGiven() {
        var table = EntryTable()
        table.reserveCapacity(5_000)
        for index in 0..<5_000 { table["k.\(index)"] = entry("k.\(index)", version: Int64(index)) }
        #expect(table.count == 5_000)
        #expect(table["k.4999"]?.version == 4_999)
    }
}
