import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// `ChangeHistory` against a plain array of the changes it should hold, with a
/// count cap and a byte cap, over enough appends that its ring wraps around and
/// grows many times.
@Suite struct ChangeHistoryRingTests {
    private static let author = Author(name: "alice", session: "s1")

    @Test func theHeldChangesMatchAPlainArrayAcrossWrapsAndGrowth() {
        var dice = Dice(seed: 27)
        for (capacity, byteLimit) in [(50, Int.max), (1_000, 40_000), (7, 3_000)] {
            var history = ChangeHistory(capacity: capacity, byteLimit: byteLimit, after: 0)
            var held: [StoreChange] = []
            var floor: Int64 = 0
            for version: Int64 in 1...3_000 {
                // Values of varied sizes, so the byte cap forgets one or several at a time.
                let text = String(repeating: "x", count: dice.below(400))
                let change = StoreChange.update(
                    key: "k.\(dice.below(10))", old: nil, new: .string(text), version: version, by: Self.author)
                history.append(change)
                held.append(change)
                while held.count > capacity
                    || (held.map(Footprint.of(change:)).reduce(0, +) > byteLimit && held.count > 1)
                {
                    floor = held.removeFirst().version
                }
                if version % 97 == 0 || version == 3_000 {
                    #expect(history.count == held.count)
                    #expect(history.floor == floor)
                    #expect(history.bytes == held.map(Footprint.of(change:)).reduce(0, +))
                    #expect(history.all.map(\.version) == held.map(\.version))
                    let from = floor + Int64(dice.below(held.count + 1))
                    #expect(
                        history.changes(of: .prefix("k.1"), after: from)?.map(\.version)
                            == held.filter { $0.version > from && $0.key.hasPrefix("k.1") }.map(\.version))
                }
            }
        }
    }

    @Test func loweringTheByteCapForgetsFromTheOldestAcrossTheWrap() {
        var history = ChangeHistory(capacity: 20, after: 0)
        for version: Int64 in 1...50 {
            history.append(.update(key: "k", old: nil, new: .integer(version), version: version, by: Self.author))
        }
        let one = Footprint.of(change: history.held(0))
        history.limitBytes(to: one * 5)
        #expect(history.all.map(\.version) == Array(46...50))
        #expect(history.floor == 45)
        history.append(.update(key: "k", old: nil, new: .integer(51), version: 51, by: Self.author))
        #expect(history.all.map(\.version) == Array(47...51))
    }
}
