import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A batch in storage is one record, read back whole or not at all, and a
/// history holds a batch's changes at their one revision.
@Suite struct BatchRecordTests {
    private let batch = StorageRecord.batch(
        revision: 7,
        [
            .set(RawValueEntry(key: "a", value: ["x": 1], version: 7, author: "alice", session: "s1")),
            .delete(key: "b", version: 7, author: "alice", session: "s1"),
            .appliedWrite(
                AppliedWrite(
                    requestId: "r1", appliedAt: 5,
                    reply: .batch(
                        revision: 7,
                        results: [
                            BatchResult(key: "a", version: 7, changed: true), BatchResult(key: "b", version: 7),
                            BatchResult(key: "c", version: 3),
                        ]))),
        ])

    private func scan(_ bytes: [UInt8]) -> (records: [StorageRecord], ending: RecordScanner.Ending?) {
        bytes.withUnsafeBytes { raw in
            var scanner = RecordScanner(raw)
            var found: [StorageRecord] = []
            while let item = scanner.next() { found.append(item.record) }
            return (found, scanner.ending)
        }
    }

    @Test func aBatchRecordReadsBackAsWritten() {
        var bytes: [UInt8] = []
        RecordFraming.append(batch, to: &bytes)
        #expect(scan(bytes).records == [batch])
        #expect(batch.revision == 7)
    }

    @Test(arguments: [1, 9, 30])
    func aTornBatchRecordYieldsNoneOfItsChanges(_ cut: Int) {
        var bytes: [UInt8] = []
        RecordFraming.append(batch, to: &bytes)
        let (records, ending) = scan(Array(bytes.dropLast(cut)))
        #expect(records.isEmpty)
        if case .torn? = ending {} else { Issue.record("ending \(String(describing: ending))") }
    }

    @Test func aHistoryHoldsTheChangesOfOneBatchAtOneRevision() {
        let author = Author(name: "alice", session: "s1")
        var history = ChangeHistory(capacity: 10, after: 0)
        history.append(.update(key: "k", old: nil, new: 1, version: 1, by: author))
        for key in ["a", "b", "c"] { history.append(.update(key: key, old: nil, new: 2, version: 2, by: author)) }
        #expect(history.changes(of: .prefix(""), after: 1)?.map(\.key) == ["a", "b", "c"])
        #expect(history.changes(of: .prefix(""), after: 0)?.count == 4, "not started over")
    }

    @Test func aBatchCutByTheCapIsNotOfferedForResumingOrSnapshots() {
        let author = Author(name: "alice", session: "s1")
        var history = ChangeHistory(capacity: 3, after: 0)
        for key in ["a", "b", "c"] { history.append(.update(key: key, old: nil, new: 1, version: 1, by: author)) }
        history.append(.update(key: "d", old: nil, new: 2, version: 2, by: author))
        #expect(history.changes(of: .prefix(""), after: 0) == nil, "batch 1 is no longer whole")
        #expect(history.changes(of: .prefix(""), after: 1)?.map(\.key) == ["d"])
        #expect(history.all.map(\.key) == ["d"])
    }
}
