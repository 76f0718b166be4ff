import ObservatoryWire
import Testing

@testable import ObservatoryServer

@Suite struct ChangeHistoryTests {
    private let author = Author(name: "alice", session: "s1")

    private func change(_ version: Int64, key: String = "k") -> StoreChange {
        .update(key: key, old: nil, new: .integer(version), version: version, by: author)
    }

    @Test func replaysTheTargetsChangesAfterARevisionOldestFirst() {
        var history = ChangeHistory(capacity: 10, after: 0)
        for version: Int64 in 1...6 { history.append(change(version, key: version.isMultiple(of: 2) ? "a.x" : "b")) }
        #expect(history.changes(of: .prefix("a."), after: 1)?.map(\.version) == [2, 4, 6])
        #expect(history.changes(of: .key("b"), after: 3)?.map(\.version) == [5])
        #expect(history.changes(of: .key("b"), after: 6) == [], "nothing missed")
    }

    @Test func cannotServeRevisionsBeforeItsFloorOrAfterItsNewest() {
        var history = ChangeHistory(capacity: 3, after: 10)
        #expect(history.changes(of: .prefix(""), after: 9) == nil, "changes up to 10 were never held")
        for version: Int64 in 11...15 { history.append(change(version)) }
        #expect(history.floor == 12 && history.count == 3)
        #expect(history.changes(of: .prefix(""), after: 11) == nil, "12 was forgotten")
        #expect(history.changes(of: .prefix(""), after: 12)?.map(\.version) == [13, 14, 15])
        #expect(history.changes(of: .prefix(""), after: 16) == nil, "a revision from the future")
        #expect(history.all.map(\.version) == [13, 14, 15])
    }

    @Test func aGapStartsTheHistoryOverInsteadOfPassingItOffAsComplete() {
        var history = ChangeHistory(capacity: 5, after: 0)
        history.append(change(1))
        history.append(change(3))
        #expect(history.changes(of: .prefix(""), after: 0) == nil)
        #expect(history.changes(of: .prefix(""), after: 2)?.map(\.version) == [3])
    }
}

@Suite struct AppliedWritesTests {
    private func write(_ id: String, at time: Int64) -> AppliedWrite {
        AppliedWrite(requestId: id, appliedAt: time, reply: .set(key: "k", version: time, changed: true))
    }

    @Test func remembersForTheRetentionOnly() {
        var writes = AppliedWrites(capacity: 10, retentionMilliseconds: 1_000)
        writes.remember(write("a", at: 0), now: 0)
        #expect(writes.lookup("a", now: 999)?.requestId == "a")
        #expect(writes.lookup("a", now: 1_000) == nil)
        writes.remember(write("b", at: 1_500), now: 1_500)
        #expect(writes.count == 1, "the expired id was forgotten")
        #expect(writes.all(now: 1_600).map(\.requestId) == ["b"])
    }

    @Test func forgetsTheOldestBeyondItsCapacity() {
        var writes = AppliedWrites(capacity: 3)
        for index in 0..<5 { writes.remember(write("r\(index)", at: Int64(index)), now: Int64(index)) }
        #expect(writes.count == 3)
        #expect(writes.lookup("r1", now: 5) == nil)
        #expect(writes.all(now: 5).map(\.requestId) == ["r2", "r3", "r4"])
    }

    @Test func aDuplicateIsAnsweredWithTheFirstRepliesFields() {
        let applied = AppliedWrite(requestId: "x", appliedAt: 0, reply: .delete(key: "k", version: 7))
        #expect(applied.duplicatePayload == .delete(key: "k", version: 7, duplicate: true))
    }
}
