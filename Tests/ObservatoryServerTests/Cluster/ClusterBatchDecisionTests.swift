import ObservatoryEtcd
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// The rules of deciding one batch against etcd, without etcd: room for each
/// create before the one transaction goes, a wide batch's record read first,
/// a refused compare planned again, etcd's limit answered as `limit_exceeded`.
@Suite struct ClusterBatchDecisionTests {
    private let layout = ClusterKeyLayout(prefix: "obs/")
    private let alice = Author(name: "alice", session: "sa.1")

    private func decision(
        _ operations: [BatchOperation<EncodedJSON>], requestId: String? = nil, current: [String: RawValueEntry] = [:]
    ) -> ClusterBatchDecision {
        ClusterBatchDecision(operations: operations, requestId: requestId, current: current, revisions: [:]) {
            [layout, alice] current, revisions in
            ClusterBatchPlan(
                operations: operations, requestId: requestId, author: alice, current: current,
                currentRevisions: revisions, layout: layout, lease: 0, requestLease: 77)
        }
    }

    private func entry(_ key: String, version: Int64) -> RawValueEntry {
        RawValueEntry(key: key, value: 1, version: version, author: "bob", session: "sb.1")
    }

    private func answer(succeeded: Bool, at revision: Int64, reads: [[EtcdKeyValue]] = []) -> EtcdTransactionResult {
        let header = EtcdResponseHeader(revision: revision)
        return EtcdTransactionResult(
            header: header, succeeded: succeeded,
            responses: reads.map { .range(EtcdRangeResult(header: header, keyValues: $0, count: Int64($0.count))) })
    }

    private func isSend(_ action: ClusterBatchDecision.Action?) -> Bool {
        if case .send? = action { return true }
        return false
    }

    @Test func eachCreateGetsRoomOneAfterAnotherBeforeTheOneTransactionGoes() {
        var machine = decision([.set(key: "a", value: 1), .set(key: "b", value: 2)])
        #expect(machine.start() == [.reserveRoom("a")])
        #expect(machine.roomDecided(refusal: nil) == [.reserveRoom("b")])
        #expect(isSend(machine.roomDecided(refusal: nil).last))
        let actions = machine.answered(answer(succeeded: true, at: 20), cacheRevision: 19)
        #expect(actions.first == .commitRoom(["a", "b"], at: 20))
        guard case .decide(let decided)? = actions.last else {
            Issue.record("expected a decision, got \(actions)")
            return
        }
        #expect(decided.revision == 20)
        #expect(decided.reserved == ["a", "b"], "held until the reply")
    }

    @Test func aCreateWithoutRoomRefusesTheBatchAtItsIndexAndReleasesTheOthersRoom() {
        var machine = decision(
            [.check(key: "x", ifVersion: 3), .set(key: "a", value: 1), .set(key: "b", value: 2)],
            current: ["x": entry("x", version: 3)])
        _ = machine.start()
        _ = machine.roomDecided(refusal: nil)
        let refusal = WireError(code: .limitExceeded, message: "full")
        let actions = machine.roomDecided(refusal: refusal)
        #expect(actions == [.releaseRoom(["a"]), .decide(.init(revision: 0, reply: .failure(refusal.at(index: 2))))])
    }

    @Test func aWideBatchWithARequestIdReadsItsRecordFirstAndAnswersWithIt() throws {
        let keys = (0..<130).map { "k\($0)" }
        var current: [String: RawValueEntry] = [:]
        for key in keys { current[key] = entry(key, version: 4) }
        var machine = decision(keys.map { .check(key: $0, ifVersion: 4) }, requestId: "r1", current: current)
        #expect(machine.start() == [.readRecord])
        let record = ClusterRequestRecord.encodeBatch(
            keys.map { BatchResult(key: $0, version: 4) }, changes: keys.map { _ in false })
        let actions = machine.recordRead(EtcdKeyValue(key: layout.requestKey("r1"), value: record, modRevision: 9))
        guard case .decide(let decided)? = actions.last, case .success(.batch(_, _, let duplicate)) = decided.reply
        else {
            Issue.record("expected the recorded reply, got \(actions)")
            return
        }
        #expect(duplicate)
    }

    @Test func aRefusedCompareReleasesTheRoomAndPlansAgainAgainstEtcdsReads() {
        var machine = decision([.set(key: "a", value: 1)])
        _ = machine.start()
        _ = machine.roomDecided(refusal: nil)
        let stored = EtcdKeyValue(
            key: layout.valueKey("a"), value: ClusterEnvelope(value: 5, author: alice).encoded(), modRevision: 8)
        let actions = machine.answered(answer(succeeded: false, at: 9, reads: [[stored]]), cacheRevision: 7)
        #expect(actions.first == .releaseRoom(["a"]))
        guard case .send(let transaction)? = actions.last else {
            Issue.record("expected the batch planned again, got \(actions)")
            return
        }
        #expect(transaction.compares == [.unchanged(layout.valueKey("a"), since: 8)], "an update now: no room asked")
    }

    @Test func aBatchOverEtcdsOperationLimitIsAnsweredLimitExceeded() {
        var machine = decision([.check(key: "x", ifVersion: 3)], current: ["x": entry("x", version: 3)])
        _ = machine.start()
        let refused = EtcdError(code: .requestFailed, message: "etcdserver: too many operations in txn request")
        guard case .decide(let decided)? = machine.failed(refused).last, case .failure(let error) = decided.reply else {
            Issue.record("expected a refusal")
            return
        }
        #expect(error.code == .limitExceeded)
        #expect(machine.isDecided)
    }
}
