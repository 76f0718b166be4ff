import Testing

@testable import ObservatoryServer

@Suite struct OrderedKeyIndexTests {
    private func keys(of index: OrderedKeyIndex, prefix: String = "", after: String? = nil) -> [String] {
        var found: [String] = []
        index.forEach(withPrefix: prefix, after: after) {
            found.append($0)
            return true
        }
        return found
    }

    private func byteSorted(_ keys: some Sequence<String>) -> [String] {
        keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    @Test func randomInsertsAndRemovesKeepByteOrderAcrossManyChunks() {
        var dice = Dice(seed: 7)
        var index = OrderedKeyIndex()
        var reference = Set<[UInt8]>()
        var texts: [[UInt8]: String] = [:]
        for step in 0..<6_000 {
            let key = "k.\(dice.below(3_000))" + (step % 3 == 0 ? "é" : "e\u{301}")
            let bytes = Array(key.utf8)
            if reference.contains(bytes) {
                index.remove(key)
                reference.remove(bytes)
            } else {
                index.insert(key)
                reference.insert(bytes)
                texts[bytes] = key
            }
        }
        let expected = byteSorted(reference.compactMap { texts[$0] })
        #expect(keys(of: index).map { Array($0.utf8) } == expected.map { Array($0.utf8) })
        #expect(index.count == reference.count)
    }

    @Test func prefixAndAfterSelectAContiguousRange() {
        let index = OrderedKeyIndex(["b.2", "a.1", "b.10", "b.1", "c", "b", "ba"])
        #expect(keys(of: index, prefix: "b.") == ["b.1", "b.10", "b.2"])
        #expect(keys(of: index, prefix: "b.", after: "b.10") == ["b.2"])
        #expect(keys(of: index, prefix: "b.", after: "a") == ["b.1", "b.10", "b.2"])
        #expect(keys(of: index, prefix: "b.", after: "c") == [])
        #expect(keys(of: index, after: "b.2") == ["ba", "c"])
        #expect(keys(of: index, prefix: "zz") == [])
    }

    @Test func keysThatShareTheirFirstSixteenBytesOrZeroBytesKeepByteOrder() {
        let shared = "presence.room.42"
        var inserted = [shared + ".b", shared, "a", shared + ".a", "a\u{0}", "a\u{0}\u{0}", shared + "\u{0}", "\u{0}"]
        inserted += (0..<40).map { "\(shared).member.\(39 - $0)" }
        var index = OrderedKeyIndex()
        for key in inserted { index.insert(key) }
        #expect(keys(of: index).map { Array($0.utf8) } == byteSorted(inserted).map { Array($0.utf8) })
        #expect(keys(of: index, prefix: shared + ".member.3").count == 11)
        index.remove("a\u{0}")
        index.remove(shared)
        #expect(index.count == inserted.count - 2)
        #expect(keys(of: index, prefix: "a") == ["a", "a\u{0}\u{0}"])
    }

    @Test func equivalentKeysWithOtherBytesAreDistinct() {
        var index = OrderedKeyIndex()
        index.insert("caf\u{E9}")
        index.insert("cafe\u{301}")
        #expect(index.count == 2)
        index.remove("caf\u{E9}")
        #expect(keys(of: index).map { Array($0.utf8) } == [Array("cafe\u{301}".utf8)])
    }

    @Test func aCopyIsUnchangedByLaterWrites() {
        var index = OrderedKeyIndex((0..<2_000).map { "k\($0)" })
        let copy = index
        index.insert("k-new")
        index.remove("k5")
        #expect(keys(of: copy).count == 2_000)
        #expect(keys(of: copy).contains("k5"))
        #expect(!keys(of: copy).contains("k-new"))
    }

    @Test func emptyingWholeChunksKeepsEveryOtherKeyWhereASearchFindsIt() {
        // Keys of 20 bytes share their first 16 ("room.0000.member"): the searches
        // compare equal prefixes and fall back to the keys' bytes.
        let all = (0..<1_000).map { "room.0000.member.\(String(1_000 + $0).dropFirst())" }
        var index = OrderedKeyIndex()
        for key in all.reversed() { index.insert(key) }
        var left = Set(all)
        // Removes whole chunks' worth of keys from the middle and the start, so chunks disappear.
        for key in all[300..<700] + all[0..<150] {
            index.remove(key)
            left.remove(key)
        }
        let sortedLeft = byteSorted(left)
        #expect(keys(of: index) == sortedLeft)
        for key in sortedLeft {
            #expect(keys(of: index, prefix: key) == [key])
        }
        for key in all[300..<700] { index.insert(key) }
        #expect(keys(of: index) == byteSorted(left.union(all[300..<700])))
        #expect(keys(of: index, after: all[299]).first == all[300])
    }
}
