import ObservatoryEtcd
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// The rules of deciding one write against etcd, without etcd: a create asks
/// for room first, a failed compare plans again against etcd's read, a
/// duplicate `requestId` answers with the record, a failure answers `unavailable`.
@Suite struct ClusterWriteDecisionTests {
    private let layout = ClusterKeyLayout(prefix: "obs/")
    private let alice = Author(name: "alice", session: "sa.1")

    private func decision(
        _ write: Write, current: RawValueEntry? = nil, maximumAttempts: Int = 64
    ) -> ClusterWriteDecision {
        ClusterWriteDecision(
            write: write, key: "k", author: alice, current: current, currentRevision: nil, layout: layout,
            leases: (0, 0, 0), now: 0, maximumAttempts: maximumAttempts)
    }

    private func set(_ value: EncodedJSON, requestId: String? = nil) -> Write {
        .set(key: "k", value: value, ifVersion: nil, sessionBound: false, requestId: requestId)
    }

    private func entry(_ value: EncodedJSON, version: Int64) -> RawValueEntry {
        RawValueEntry(key: "k", value: value, version: version, author: "bob", session: "sb.1")
    }

    /// etcd's answer to a transaction at `revision`: applied, or refused with the failure branch's reads.
    private func answer(
        succeeded: Bool, at revision: Int64, reads: [[EtcdKeyValue]] = []
    ) -> EtcdTransactionResult {
        let header = EtcdResponseHeader(revision: revision)
        return EtcdTransactionResult(
            header: header, succeeded: succeeded,
            responses: reads.map { .range(EtcdRangeResult(header: header, keyValues: $0, count: Int64($0.count))) })
    }

    /// The transaction a `send` action carries, if the actions end with one.
    private func sent(_ actions: [ClusterWriteDecision.Action]) -> EtcdTransaction? {
        guard case .send(let transaction)? = actions.last else { return nil }
        return transaction
    }

    private func decided(_ actions: [ClusterWriteDecision.Action]) -> ClusterWriteDecision.Decision? {
        guard case .decide(let decision)? = actions.last else { return nil }
        return decision
    }

    @Test func aCreateReservesRoomBeforeItsTransactionIsSent() {
        var machine = decision(set(1))
        #expect(machine.start() == [.reserveRoom])
        let actions = machine.roomDecided(refusal: nil)
        #expect(sent(actions)?.compares == [.absent(Array("obs/k/k".utf8))])
    }

    @Test func aCreateWithoutRoomIsRefusedWithTheBudgetsErrorAndNothingIsSent() {
        var machine = decision(set(1))
        _ = machine.start()
        let refusal = WireError(code: .limitExceeded, message: "full")
        #expect(machine.roomDecided(refusal: refusal) == [.decide(.init(revision: 0, reply: .failure(refusal)))])
        #expect(machine.isDecided)
    }

    @Test func anAppliedCreateCommitsItsRoomAndRepliesAtTheCommittedRevision() {
        var machine = decision(set(1))
        _ = machine.start()
        _ = machine.roomDecided(refusal: nil)
        let actions = machine.answered(answer(succeeded: true, at: 12))
        #expect(
            actions == [
                .commitRoom(at: 12),
                .decide(
                    .init(
                        revision: 12, reply: .success(.set(key: "k", version: 12, changed: true)), isCreate: true,
                        isChange: true)),
            ])
    }

    @Test func aChangeOfAnExistingKeyIsSentAtOnceWithoutAskingForRoom() {
        var machine = decision(set(2), current: entry(1, version: 5))
        #expect(sent(machine.start())?.compares == [.unchanged(Array("obs/k/k".utf8), since: 5)])
    }

    @Test func aFailedCompareReleasesTheRoomAndPlansAgainAgainstEtcdsRead() {
        var machine = decision(set(2))
        _ = machine.start()
        _ = machine.roomDecided(refusal: nil)
        // Another node created the key meanwhile, at revision 8.
        let stored = EtcdKeyValue(
            key: Array("obs/k/k".utf8), value: ClusterEnvelope(value: 1, author: alice).encoded(), modRevision: 8)
        let actions = machine.answered(answer(succeeded: false, at: 9, reads: [[stored]]))
        #expect(actions.first == .releaseRoom)
        #expect(sent(actions)?.compares == [.unchanged(Array("obs/k/k".utf8), since: 8)], "no room asked: not a create")
    }

    @Test func aWriteWhoseKeyKeepsChangingGivesUpAfterItsAttempts() {
        var machine = decision(set(2), current: entry(1, version: 5), maximumAttempts: 2)
        _ = machine.start()
        let stored = EtcdKeyValue(
            key: Array("obs/k/k".utf8), value: ClusterEnvelope(value: 1, author: alice).encoded(), modRevision: 8)
        #expect(sent(machine.answered(answer(succeeded: false, at: 9, reads: [[stored]]))) != nil)
        let last = decided(machine.answered(answer(succeeded: false, at: 10, reads: [[stored]])))
        #expect((try? last?.reply.get()) == nil)
        if case .failure(let error)? = last?.reply { #expect(error.code == .unavailable) }
    }

    @Test func aDuplicateRequestIdAnswersWithTheRecordedReply() throws {
        var machine = decision(set(2, requestId: "r1"), current: entry(1, version: 5))
        let transaction = try #require(sent(machine.start()))
        #expect(transaction.compares.count == 2, "the key's compare and the requestId's")
        let record = try #require(
            ClusterRequestRecord.encode(.set(key: "k", version: 7, changed: true), isChange: true))
        let recorded = EtcdKeyValue(key: layout.requestKey("r1"), value: record, modRevision: 7)
        let current = EtcdKeyValue(
            key: Array("obs/k/k".utf8), value: ClusterEnvelope(value: 2, author: alice).encoded(), modRevision: 7)
        let last = decided(machine.answered(answer(succeeded: false, at: 9, reads: [[current], [recorded]])))
        #expect(last?.revision == 7)
        #expect((try? last?.reply.get()) == .set(key: "k", version: 7, changed: true, duplicate: true))
    }

    @Test func anEtcdFailureReleasesTheRoomAndAnswersUnavailableSayingWhetherItMayHaveBeenApplied() {
        var machine = decision(set(1))
        _ = machine.start()
        _ = machine.roomDecided(refusal: nil)
        let actions = machine.failed(.unavailable("down", mayHaveBeenApplied: true))
        #expect(actions.first == .releaseRoom)
        guard case .failure(let error)? = decided(actions)?.reply else {
            Issue.record("expected a failure, got \(actions)")
            return
        }
        #expect(error.code == .unavailable)
        #expect(error.message.contains("may have been applied"))
        #expect(machine.answered(answer(succeeded: true, at: 3)).isEmpty, "a decided write takes no more input")
    }

    @Test func aSetOfAnEqualValueWaitsForTheVersionItReadNotForANewRevision() {
        var machine = decision(set(1), current: entry(1, version: 5))
        _ = machine.start()
        let last = decided(machine.answered(answer(succeeded: true, at: 30)))
        #expect(last == .init(revision: 5, reply: .success(.set(key: "k", version: 5, changed: false))))
    }
}
