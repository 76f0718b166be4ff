import ObservatoryEtcd
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A batch whose compares would not fit etcd's default `--max-txn-ops` (128):
/// the last few unconditional creates leave theirs out, as few as it takes;
/// every other operation, and every batch that fits, keeps a compare per key.
@Suite struct ClusterBatchPlanLimitTests {
    private let layout = ClusterKeyLayout(prefix: "obs/")
    private let alice = Author(name: "alice", session: "sa.1")
    private let recordKey = Array("obs/r/full".utf8)

    private func plan(_ operations: [BatchOperation<EncodedJSON>], current: [String: RawValueEntry] = [:])
        -> ClusterBatchPlan
    {
        ClusterBatchPlan(
            operations: operations, requestId: "full", author: alice, current: current, layout: layout, lease: 0,
            requestLease: 77)
    }

    private func creates(_ count: Int) -> [BatchOperation<EncodedJSON>] {
        (0..<count).map { .set(key: "new.\($0)", value: 1) }
    }

    private func existing(_ count: Int) -> [String: RawValueEntry] {
        Dictionary(
            uniqueKeysWithValues: (0..<count).map {
                ("old.\($0)", RawValueEntry(key: "old.\($0)", value: 0, version: 3, author: "bob", session: "sb.1"))
            })
    }

    @Test func aBatchOf125CreatesWithARequestIdComparesEveryKey() {
        let compares = plan(creates(125)).transaction.compares
        #expect(compares == (0..<125).map { .absent(layout.valueKey("new.\($0)")) } + [.absent(recordKey)])
    }

    @Test func aBatchOf128CreatesLeavesOutTheComparesOfItsLastFourAndFits() {
        let plan = plan(creates(128))
        #expect(plan.fits)
        let transaction = plan.transaction
        #expect(
            transaction.compares == (0..<124).map { .absent(layout.valueKey("new.\($0)")) } + [.absent(recordKey)])
        #expect(transaction.success.count < 128, "nested under the compares")
        #expect(transaction.failure.count < 128, "every key and the record is still read when a compare fails")
    }

    @Test func conditionalOperationsAndSetsOfExistingKeysKeepTheirCompares() {
        let current = existing(128)
        let updates: [BatchOperation<EncodedJSON>] = (0..<128).map {
            $0.isMultiple(of: 2)
                ? .set(key: "old.\($0)", value: 1) : .set(key: "old.\($0)", value: 1, ifVersion: 3)
        }
        let refused = plan(updates, current: current)
        #expect(refused.transaction.compares.count == 129 && !refused.fits, "etcd refuses it: limit_exceeded")
        let checks: [BatchOperation<EncodedJSON>] = (0..<128).map { .check(key: "new.\($0)", ifVersion: 0) }
        #expect(plan(checks).transaction.compares.count == 129)
    }

    @Test func onlyUnconditionalCreatesLeaveOutTheirCompares() {
        let operations: [BatchOperation<EncodedJSON>] =
            creates(4) + (0..<120).map { .set(key: "old.\($0)", value: 1) } + [
                .set(key: "new.a", value: 1, ifVersion: 0), .delete(key: "old.120"), .check(key: "new.b", ifVersion: 0),
                .set(key: "old.121", value: 0),
            ]
        let compares = plan(operations, current: existing(122)).transaction.compares
        // An update is one put (an existing key has no deletion marker): three of the creates' compares go, the last first.
        #expect(compares.count == 126)
        #expect(!compares.contains { (1..<4).map { .absent(layout.valueKey("new.\($0)")) }.contains($0) })
        #expect(compares.contains(.absent(layout.valueKey("new.a"))) && compares.last == .absent(recordKey))
    }
}
