import Testing

@testable import ObservatoryServer

/// `OrderedKeyIndex` against a plain sorted array of the same keys: random
/// inserts and removes (at both ends of chunks, splitting and emptying them, on
/// copies a reader holds), then pages read with prefixes, `after` and a limit.
@Suite struct OrderedKeyIndexModelTests {
    /// Keys that differ early, keys that share their first 16 bytes, and keys
    /// with zero bytes, so both the prefix comparisons and the byte fallback decide.
    private static func key(_ number: Int) -> String {
        switch number % 4 {
        case 0: "k.\(number)"
        case 1: "presence.room.42.member.\(number)"
        case 2: "a\u{0}\(number % 7 == 0 ? "" : String(number))"
        default: "z.\(number).\u{E9}"
        }
    }

    private static func byteOrdered(_ keys: some Sequence<String>) -> [String] {
        keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Up to `limit` keys of `index` under `prefix` after `after`, as `list` reads a page.
    private static func page(_ index: OrderedKeyIndex, prefix: String, after: String?, limit: Int) -> [String] {
        var found: [String] = []
        index.forEach(withPrefix: prefix, after: after) { key in
            found.append(key)
            return found.count < limit
        }
        return found
    }

    /// The same page read from the sorted array.
    private static func page(_ sorted: [String], prefix: String, after: String?, limit: Int) -> [String] {
        let selected = sorted.filter { key in
            key.utf8.starts(with: prefix.utf8) && after.map { $0.utf8.lexicographicallyPrecedes(key.utf8) } != false
        }
        return Array(selected.prefix(limit))
    }

    @Test func insertsRemovesAndPagesMatchASortedArray() {
        var dice = Dice(seed: 36)
        var index = OrderedKeyIndex()
        var present = Set<[UInt8]>()
        var reference: [String] = []
        var copies: [(index: OrderedKeyIndex, keys: [String])] = []
        for step in 0..<12_000 {
            let key = Self.key(dice.below(4_000))
            let bytes = Array(key.utf8)
            if present.contains(bytes) {
                index.remove(key)
                present.remove(bytes)
                reference.removeAll { Array($0.utf8) == bytes }
            } else {
                index.insert(key)
                present.insert(bytes)
                reference.append(key)
            }
            // A reader's copy now and then: later writes must leave it as it was.
            if step % 1_500 == 0 { copies.append((index, Self.byteOrdered(reference))) }
        }
        let sorted = Self.byteOrdered(reference)
        #expect(index.count == sorted.count)
        #expect(Self.page(index, prefix: "", after: nil, limit: .max) == sorted)
        for copy in copies {
            #expect(Self.page(copy.index, prefix: "", after: nil, limit: .max) == copy.keys)
        }
        let prefixes = ["", "k.", "k.1", "presence.room.42.member.1", "a\u{0}", "a", "z.", "presence.room.42", "q"]
        for _ in 0..<300 {
            let prefix = dice.pick(prefixes)
            let after = dice.below(3) == 0 ? nil : Self.key(dice.below(4_000))
            let limit = 1 + dice.below(150)
            #expect(
                Self.page(index, prefix: prefix, after: after, limit: limit)
                    == Self.page(sorted, prefix: prefix, after: after, limit: limit),
                "prefix \(prefix.debugDescription) after \(after?.debugDescription ?? "nil") limit \(limit)")
        }
    }

    @Test func keysBuiltInBulkMatchASortedArrayAndStayInOrderUnderInserts() {
        let sorted = Self.byteOrdered(Set((0..<3_000).map(Self.key)))
        var index = OrderedKeyIndex(sortedKeys: sorted)
        #expect(Self.page(index, prefix: "", after: nil, limit: .max) == sorted)
        // Inserts at both ends of every chunk: before its first key and after its last.
        let added = (3_000..<6_000).map(Self.key)
        for key in added { index.insert(key) }
        #expect(Self.page(index, prefix: "", after: nil, limit: .max) == Self.byteOrdered(sorted + added))
    }

    @Test func aPrefixWithZeroBytesDoesNotMatchAShorterKey() {
        let index = OrderedKeyIndex(["a", "a\u{0}", "a\u{0}\u{0}", "a\u{0}b", "b"])
        #expect(Self.page(index, prefix: "a\u{0}", after: nil, limit: .max) == ["a\u{0}", "a\u{0}\u{0}", "a\u{0}b"])
        #expect(Self.page(index, prefix: "a\u{0}\u{0}", after: nil, limit: .max) == ["a\u{0}\u{0}"])
        // A page starts at the prefix, so a shorter key never reaches the match; the match alone must still refuse it.
        let match = OrderedKeyIndex.KeyPrefix.Match("a\u{0}")
        #expect(!match.admits("a", prefix: OrderedKeyIndex.KeyPrefix("a")))
        #expect(match.admits("a\u{0}", prefix: OrderedKeyIndex.KeyPrefix("a\u{0}")))
        #expect(!match.admits("a\u{1}", prefix: OrderedKeyIndex.KeyPrefix("a\u{1}")))
        let long = "presence.room.42.member."
        let longer = OrderedKeyIndex([long + "1", long, "presence.room.42.memberX", long.dropLast() + "/"])
        #expect(Self.page(longer, prefix: long, after: nil, limit: .max) == [long, long + "1"])
    }
}
