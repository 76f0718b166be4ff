import ObservatoryEtcd
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A batch as one etcd transaction: a compare per key, every change in the
/// success branch, a read of every key (and the record) in the failure branch.
@Suite struct ClusterBatchPlanTests {
    private let layout = ClusterKeyLayout(prefix: "obs/")
    private let alice = Author(name: "alice", session: "sa.1")

    private func entry(_ key: String, _ value: EncodedJSON, version: Int64) -> RawValueEntry {
        RawValueEntry(key: key, value: value, version: version, author: "bob", session: "sb.1")
    }

    private func valueKey(_ key: String) -> [UInt8] { layout.valueKey(key) }

    private func plan(
        _ operations: [BatchOperation<EncodedJSON>], current: [String: RawValueEntry], requestId: String? = nil
    ) -> ClusterBatchPlan {
        ClusterBatchPlan(
            operations: operations, requestId: requestId, author: alice, current: current, layout: layout, lease: 0,
            requestLease: 77)
    }

    @Test func everyKeyIsComparedAndEveryChangeIsInTheSuccessBranch() throws {
        let plan = plan(
            [.check(key: "lock", ifVersion: 4), .set(key: "job", value: "printing"), .delete(key: "queue")],
            current: ["lock": entry("lock", 1, version: 4), "queue": entry("queue", 2, version: 5)])
        #expect(
            plan.transaction.compares == [
                .unchanged(valueKey("lock"), since: 4), .absent(valueKey("job")),
                .unchanged(valueKey("queue"), since: 5),
            ])
        #expect(plan.transaction.success.count == 4, "a put and its marker's delete, a marker's put and a delete")
        #expect(plan.transaction.failure == ["lock", "job", "queue"].map { .range(.key(valueKey($0))) })
        #expect(plan.creates == ["job"])
        #expect(
            try plan.reply(committedAt: 9, current: 5).get()
                == .batch(
                    revision: 9,
                    results: [
                        BatchResult(key: "lock", version: 4), BatchResult(key: "job", version: 9, changed: true),
                        BatchResult(key: "queue", version: 9),
                    ]))
    }

    @Test func theFirstFailingOperationFailsTheBatchWithItsIndexAndWritesNothing() {
        let plan = plan(
            [.set(key: "a", value: 1), .delete(key: "missing"), .check(key: "b", ifVersion: 9)],
            current: ["b": entry("b", 1, version: 2)])
        #expect(plan.transaction.success.isEmpty && plan.creates.isEmpty)
        #expect(plan.transaction.compares.count == 3, "the failure is confirmed against etcd")
        #expect(throws: WireError.notFound(key: "missing").at(index: 1)) {
            try plan.reply(committedAt: 3, current: 2).get()
        }
    }

    @Test func aBatchThatChangesNothingAnswersTheCurrentRevision() throws {
        let plan = plan([.set(key: "a", value: 1)], current: ["a": entry("a", 1, version: 3)])
        #expect(!plan.writes)
        #expect(
            try plan.reply(committedAt: 8, current: 6).get()
                == .batch(revision: 6, results: [BatchResult(key: "a", version: 3, changed: false)]))
    }

    @Test func aRequestIdIsRecordedInTheTransactionAndAnswersItsDuplicate() throws {
        let plan = plan([.set(key: "a", value: 1), .check(key: "b", ifVersion: 0)], current: [:], requestId: "r1")
        let recordKey = Array("obs/r/r1".utf8)
        #expect(plan.transaction.compares.last == .absent(recordKey))
        #expect(plan.transaction.failure.last == .range(.key(recordKey)))
        guard case .put(let key, let record, let lease, _)? = plan.transaction.success.last else {
            Issue.record("no record")
            return
        }
        #expect(key == recordKey && lease == 77)
        let stored = EtcdKeyValue(key: key, value: record, createRevision: 12, modRevision: 12, version: 1, lease: 77)
        let result = EtcdTransactionResult(
            header: EtcdResponseHeader(revision: 20), succeeded: false,
            responses: [
                .range(EtcdRangeResult(header: EtcdResponseHeader(), keyValues: [], count: 0)),
                .range(EtcdRangeResult(header: EtcdResponseHeader(), keyValues: [], count: 0)),
                .range(EtcdRangeResult(header: EtcdResponseHeader(), keyValues: [stored], count: 1)),
            ])
        #expect(
            ClusterBatchPlan.duplicateReply(from: result, keyCount: 2)
                == .batch(
                    revision: 12,
                    results: [BatchResult(key: "a", version: 12, changed: true), BatchResult(key: "b", version: 0)],
                    duplicate: true))
    }

    @Test func aFailedCompareIsPlannedAgainAgainstWhatEtcdRead() {
        let stored = EtcdKeyValue(
            key: valueKey("a"), value: ClusterEnvelope(value: 5, author: alice).encoded(), createRevision: 3,
            modRevision: 7, version: 2, lease: 0)
        let result = EtcdTransactionResult(
            header: EtcdResponseHeader(revision: 7), succeeded: false,
            responses: [
                .range(EtcdRangeResult(header: EtcdResponseHeader(), keyValues: [stored], count: 1)),
                .range(EtcdRangeResult(header: EtcdResponseHeader(), keyValues: [], count: 0)),
            ])
        let current = ClusterBatchPlan.current(from: result, keys: ["a", "b"]).entries
        #expect(current["a"]?.version == 7 && current["a"]?.value == 5 && current["b"] == nil)
        let again = plan([.set(key: "b", value: 1), .set(key: "a", value: 6, ifVersion: 4)], current: current)
        #expect(throws: WireError.conflict(key: "a", expected: 4, current: 7).at(index: 1)) {
            try again.reply(committedAt: 8, current: 7).get()
        }
    }
}
