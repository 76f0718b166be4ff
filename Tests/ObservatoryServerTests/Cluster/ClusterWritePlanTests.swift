import ObservatoryEtcd
import ObservatoryWire
import Testing

@testable import ObservatoryServer

@Suite struct ClusterWritePlanTests {
    private let layout = ClusterKeyLayout(prefix: "obs/")
    private let alice = Author(name: "alice", session: "sa.1")

    private func entry(_ value: EncodedJSON, version: Int64, sessionBound: Bool = false) -> RawValueEntry {
        RawValueEntry(
            key: "k", value: value, version: version, author: "bob", session: "sb.1", sessionBound: sessionBound)
    }

    @Test func aWriteComparesTheVersionItBelievesTheKeyHas() {
        let absent = ClusterWritePlan(
            write: .set(key: "k", value: 1, ifVersion: nil, sessionBound: false, requestId: nil), author: alice,
            current: nil, layout: layout)
        #expect(absent.transaction.compares == [.absent(Array("obs/k/k".utf8))])
        let present = ClusterWritePlan(
            write: .set(key: "k", value: 1, ifVersion: nil, sessionBound: false, requestId: nil), author: alice,
            current: entry(0, version: 7), layout: layout)
        #expect(present.transaction.compares == [.unchanged(Array("obs/k/k".utf8), since: 7)])
        #expect(present.transaction.failure == [.range(.key(Array("obs/k/k".utf8)))])
    }

    @Test func aSetStoresItsAuthorAndTakesTheCommittedRevision() throws {
        let plan = ClusterWritePlan(
            write: .set(key: "k", value: "red", ifVersion: nil, sessionBound: true, requestId: nil), author: alice,
            current: nil, layout: layout, lease: 42)
        #expect(plan.outcome == .change)
        guard case .put(let key, let value, let lease, _)? = plan.transaction.success.first else {
            Issue.record("no put")
            return
        }
        #expect(key == Array("obs/k/k".utf8))
        #expect(lease == 42)
        let stored = ClusterEnvelope.decode(value)
        #expect(stored == ClusterEnvelope(value: "red", author: alice, sessionBound: true))
        #expect(try plan.reply(committedAt: 12).get() == .set(key: "k", version: 12, changed: true))
    }

    @Test func aSetOfAnExistingKeyIsOnePutAndOnlyACreateRemovesTheDeletionMarker() {
        let update = ClusterWritePlan(
            write: .set(key: "k", value: 2, ifVersion: nil, sessionBound: false, requestId: nil), author: alice,
            current: entry(1, version: 7), layout: layout)
        #expect(update.transaction.success.count == 1, "an existing key has no marker to remove")
        let create = ClusterWritePlan(
            write: .set(key: "k", value: 2, ifVersion: nil, sessionBound: false, requestId: nil), author: alice,
            current: nil, layout: layout)
        #expect(create.transaction.success.last == .deleteRange(.key(layout.deletionKey("k"))))
        let createUnmarked = ClusterWritePlan(
            write: .set(key: "k", value: 2, ifVersion: nil, sessionBound: false, requestId: nil), author: alice,
            current: nil, layout: layout, deletionMarker: false)
        #expect(createUnmarked.transaction.success.count == 1, "no marker known: nothing to remove")
    }

    @Test func aSetWithAnEqualValueChangesNothing() throws {
        let plan = ClusterWritePlan(
            write: .set(key: "k", value: 5, ifVersion: nil, sessionBound: false, requestId: nil), author: alice,
            current: entry(5, version: 3), layout: layout)
        #expect(plan.transaction.success.isEmpty)
        #expect(try plan.reply(committedAt: 9).get() == .set(key: "k", version: 3, changed: false))
    }

    @Test func aMismatchedIfVersionIsAConflictWithTheCurrentVersion() {
        let plan = ClusterWritePlan(
            write: .set(key: "k", value: 5, ifVersion: 0, sessionBound: false, requestId: nil), author: alice,
            current: entry(4, version: 3), layout: layout)
        #expect(plan.transaction.success.isEmpty)
        #expect(plan.outcome == .failure(.conflict(key: "k", expected: 0, current: 3)))
    }

    @Test func aDeleteWritesItsAuthorsMarkerInTheSameTransaction() throws {
        let plan = ClusterWritePlan(
            write: .delete(key: "k", ifVersion: 3, requestId: nil), author: alice, current: entry(4, version: 3),
            layout: layout)
        guard case .put(let markerKey, let marker, _, _)? = plan.transaction.success.first else {
            Issue.record("no marker")
            return
        }
        #expect(markerKey == Array("obs/d/k".utf8))
        #expect(ClusterEnvelope.decode(marker) == ClusterEnvelope(value: nil, author: alice))
        #expect(plan.transaction.success.last == .deleteRange(.key(Array("obs/k/k".utf8))))
        #expect(try plan.reply(committedAt: 8).get() == .delete(key: "k", version: 8))
    }

    @Test func deletingAMissingKeyIsNotFoundOrAConflict() {
        let plain = ClusterWritePlan(
            write: .delete(key: "k", ifVersion: nil, requestId: nil), author: alice, current: nil, layout: layout)
        #expect(plain.outcome == .failure(.notFound(key: "k")))
        let conditional = ClusterWritePlan(
            write: .delete(key: "k", ifVersion: 0, requestId: nil), author: alice, current: nil, layout: layout)
        #expect(conditional.outcome == .failure(.conflictDeletingMissing(key: "k")))
    }

    @Test func aWriteWithARequestIdIsRecordedInItsTransactionAndAnsweredFromTheRecordAgain() throws {
        let plan = ClusterWritePlan(
            write: .set(key: "k", value: 1, ifVersion: nil, sessionBound: false, requestId: "r1"), author: alice,
            current: nil, layout: layout, requestLease: 77)
        let recordKey = Array("obs/r/r1".utf8)
        #expect(plan.transaction.compares.last == .absent(recordKey))
        #expect(plan.transaction.failure.last == .range(.key(recordKey)))
        guard case .put(let key, let record, let lease, _)? = plan.transaction.success.last else {
            Issue.record("no record")
            return
        }
        #expect(key == recordKey)
        #expect(lease == 77)
        let stored = EtcdKeyValue(key: key, value: record, createRevision: 12, modRevision: 12, version: 1, lease: 77)
        #expect(
            ClusterRequestRecord.duplicateReply(stored) == .set(key: "k", version: 12, changed: true, duplicate: true))
    }
}
