import ObservatoryEtcd
import ObservatoryTestSupport
import Testing

@testable import ObservatoryServer

/// A group of writes is one etcd transaction: each write is decided by its own
/// compare, all commit at one revision, and one write's fault stays its own.
@Suite(.requiresEtcd)
struct ClusterGroupedWritesTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    private func create(_ key: String, lease: Int64 = 0) -> EtcdTransaction {
        EtcdTransaction(
            compares: [.absent(bytes(key))], success: [.put(key: bytes(key), value: bytes("new"), lease: lease)],
            failure: [.range(.key(key))])
    }

    /// Each write's answer to one group, once etcd answered.
    private func send(_ transactions: [EtcdTransaction], through writes: ClusterGroupedWrites) async
        -> [Result<EtcdTransactionResult, EtcdError>]
    {
        await withCheckedContinuation { continuation in
            writes.send(transactions) { continuation.resume(returning: $0) }
        }
    }

    @Test func eachWriteOfAGroupIsDecidedByItsOwnCompareAtTheGroupsRevision() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let writes = ClusterGroupedWrites(client: client)
            let taken = try client.put(bytes("taken"), bytes("old")).header.revision
            let answers = await send([create("free"), create("taken"), create("other")], through: writes).map {
                try? $0.get()
            }
            #expect(answers.map { $0?.succeeded } == [true, false, true])
            let revisions = Set(answers.compactMap { $0?.header.revision })
            #expect(revisions.count == 1 && revisions.first ?? 0 > taken, "one revision for the whole group")
            guard case .range(let current)? = answers[1]?.responses.first else {
                Issue.record("expected the refused write's read, got \(String(describing: answers[1]))")
                return
            }
            #expect(current.keyValues.first?.valueText == "old")
        }
    }

    @Test func aGroupEtcdRefusesIsSentAgainOneWriteAtATime() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let writes = ClusterGroupedWrites(client: client)
            let answers = await send([create("good"), create("lost", lease: 4_242_424_242)], through: writes)
            #expect((try? answers[0].get())?.succeeded == true)
            #expect(throws: EtcdError.self) { try answers[1].get() }
            #expect(try client.get(bytes("good")) != nil)
            #expect(try client.get(bytes("lost")) == nil)
        }
    }
}
