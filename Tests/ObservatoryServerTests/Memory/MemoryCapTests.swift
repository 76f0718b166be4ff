import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// The byte caps of docs/protocol.md "Memory" as plain rules: the store refuses a write
/// that would pass `maxStoreBytes` and lets every write that shrinks it through; the
/// history forgets its oldest changes beyond `historyBytes`.
@Suite struct MemoryCapTests {
    let alice = Author(name: "alice", session: "s1")

    private func text(_ count: Int, _ letter: Character = "x") -> EncodedJSON {
        .string(String(repeating: letter, count: count))
    }

    @Test func theStoreCountsWhatItsEntriesHoldAndGivesItBackOnDelete() throws {
        var state = StoreState(maxKeys: 10)
        state.apply(try state.planSet("a", to: text(1_000), ifVersion: nil, by: alice))
        let one = state.bytes
        #expect(one >= 1_000 && one < 1_500, "a value's bytes and a bounded overhead")
        state.apply(try state.planSet("a", to: text(3_000), ifVersion: nil, by: alice))
        #expect(state.bytes == one + 2_000, "a replaced value counts its new size only")
        state.apply(try state.planDelete("a", ifVersion: nil, by: alice))
        #expect(state.bytes == 0)
    }

    @Test func aWriteThatWouldPassTheCapIsRefusedNamingTheLimit() throws {
        var state = StoreState(maxKeys: 100, maxBytes: 10_000)
        for index in 0..<4 { state.apply(try state.planSet("k\(index)", to: text(2_000), ifVersion: nil, by: alice)) }
        let before = state.bytes
        #expect(throws: WireError.self) { try state.planSet("k4", to: text(2_000), ifVersion: nil, by: alice) }
        do {
            _ = try state.planSet("k4", to: text(2_000), ifVersion: nil, by: alice)
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.message.contains("limits.maxStoreBytes"))
        }
        #expect(state.bytes == before && state.entry("k4") == nil, "nothing was made")
        #expect(throws: WireError.self, "growing an existing value is refused too") {
            try state.planSet("k0", to: text(4_000), ifVersion: nil, by: alice)
        }
    }

    @Test func aFullStoreStillTakesDeletesAndSmallerValues() throws {
        var state = StoreState(maxKeys: 100, maxBytes: 5_000)
        state.apply(try state.planSet("a", to: text(2_000), ifVersion: nil, by: alice))
        state.apply(try state.planSet("b", to: text(2_000), ifVersion: nil, by: alice))
        #expect(throws: WireError.self) { try state.planSet("c", to: text(2_000), ifVersion: nil, by: alice) }
        state.apply(try state.planSet("a", to: text(10), ifVersion: nil, by: alice))
        state.apply(try state.planDelete("b", ifVersion: nil, by: alice))
        state.apply(try state.planSet("c", to: text(2_000), ifVersion: nil, by: alice))
        #expect(state.entry("c") != nil)
    }

    @Test func anEndedSessionsKeysGiveTheirBytesBack() throws {
        var state = StoreState(maxKeys: 10)
        state.apply(try state.planSet("p", to: text(500), ifVersion: nil, sessionBound: true, by: alice))
        for planned in state.planSessionEnd(alice.session) { state.apply(planned) }
        #expect(state.bytes == 0)
    }

    @Test func aValueCountsTheBytesItWasSentIn() throws {
        let numbers = try EncodedJSON(validating: Array(" [1, 2.0, 3] ".utf8))
        #expect(Footprint.of(numbers) == Footprint.heapObject + 11, "its bytes, spaces inside it too")
        #expect(Footprint.of(text(10_000)) == Footprint.heapObject + 10_002)
        #expect(Footprint.of("short") == 0, "a short string sits in its slot")
    }

    @Test func theHistoryForgetsItsOldestChangesBeyondItsBytes() {
        var history = ChangeHistory(capacity: 1_000, byteLimit: 50_000, after: 0)
        for version: Int64 in 1...100 {
            history.append(
                .update(
                    key: "k", old: nil, new: text(1_000, version.isMultiple(of: 2) ? "a" : "b"), version: version,
                    by: alice))
        }
        #expect(history.bytes <= 50_000)
        #expect(history.count < 100 && history.count >= 40, "about 50 changes of a kilobyte each fit")
        #expect(history.newest == 100 && history.floor == 100 - Int64(history.count))
        #expect(history.changes(of: .key("k"), after: history.floor)?.count == history.count, "what is held is whole")
        #expect(history.changes(of: .key("k"), after: history.floor - 1) == nil)
    }

    @Test func theHistoryKeepsTheNewestChangeWhateverItsSize() {
        var history = ChangeHistory(capacity: 10, byteLimit: 100, after: 0)
        history.append(.update(key: "k", old: nil, new: text(1_000), version: 1, by: alice))
        history.append(.update(key: "k", old: nil, new: text(1_000), version: 2, by: alice))
        #expect(history.count == 1 && history.newest == 2 && history.floor == 1)
    }

    @Test func loweringTheByteLimitForgetsAtOnce() {
        var history = ChangeHistory(capacity: 100, after: 0)
        for version: Int64 in 1...10 {
            history.append(.update(key: "k", old: nil, new: text(1_000), version: version, by: alice))
        }
        history.limitBytes(to: 3_000)
        #expect(history.count <= 3 && history.bytes <= 3_000)
        #expect(history.all.last?.version == 10)
    }
}

@Suite struct TrimScheduleTests {
    @Test func oneTrimIsScheduledPerBurstOfClosedConnections() {
        var schedule = TrimSchedule()
        let decisions = (0..<(TrimSchedule.closedConnectionsPerTrim * 3)).map { _ in schedule.connectionClosed() }
        #expect(decisions.filter { $0 }.count == 1, "one trim until it has run")
        #expect(decisions.firstIndex(of: true) == TrimSchedule.closedConnectionsPerTrim - 1)
        schedule.trimmed()
        let afterTrim = schedule.connectionClosed()
        #expect(!afterTrim, "closures after the trim count anew")
    }
}
