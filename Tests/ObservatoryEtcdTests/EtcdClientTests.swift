import Foundation
import Observatory
import ObservatoryEtcd
import ObservatoryTestSupport
import Testing

/// The client against real etcd members: reads, writes, transactions, parallel requests.
@Suite(.requiresEtcd)
struct EtcdClientTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Runs `body` on `count` threads at once and returns their results in index order.
    private func onThreads<Result: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) -> Result) -> [Result] {
        let results = Locked<[Result?]>(Array(repeating: nil, count: count))
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread {
                let result = body(index)
                results.withLock { $0[index] = result }
                group.leave()
            }
        }
        group.wait()
        return results.withLock { $0.compactMap { $0 } }
    }

    @Test func putRangeAndDeleteRoundTripArbitraryBytes() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let key: [UInt8] = [0x00, 0xff, 0x2f, 0x80]
            let value: [UInt8] = Array(0...255)
            let put = try client.put(key, value)
            let read = try #require(try client.get(key))
            #expect(read.value == value)
            #expect(read.modRevision == put.header.revision)
            #expect(read.createRevision == put.header.revision)
            #expect(read.version == 1)
            let deleted = try client.deleteRange(.key(key), returnPrevious: true)
            #expect(deleted.deleted == 1)
            #expect(deleted.previousKeyValues.first?.value == value)
            #expect(try client.get(key) == nil)
        }
    }

    @Test func prefixRangeReturnsOnlyTheKeysUnderThePrefix() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            for key in ["a/1", "a/2", "a0", "b/1", "a"] { try client.put(bytes(key), bytes("x")) }
            let found = try client.range(.prefix("a/"))
            #expect(found.keyValues.map(\.keyText) == ["a/1", "a/2"])
            #expect(found.count == 2)
            let limited = try client.range(.prefix("a/"), limit: 1)
            #expect(limited.keyValues.count == 1)
            #expect(limited.more)
        }
    }

    @Test func createOnlyTransactionHasExactlyOneWinnerAmongTenThreads() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let key = bytes("leader")
            let outcomes = onThreads(10) { index -> Bool? in
                let transaction = EtcdTransaction(
                    compares: [.absent(key)], success: [.put(key: key, value: Array("thread \(index)".utf8))],
                    failure: [.range(.key(key))])
                return try? client.transaction(transaction).succeeded
            }
            #expect(outcomes.count == 10)
            #expect(outcomes.filter { $0 == true }.count == 1)
            #expect(outcomes.filter { $0 == false }.count == 9)
            let stored = try #require(try client.get(key))
            #expect(stored.version == 1)
        }
    }

    @Test func compareAndSwapFailsOnAStaleModRevisionAndReturnsTheCurrentValue() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let key = bytes("counter")
            let first = try client.put(key, bytes("1")).header.revision
            try client.put(key, bytes("2"))
            let stale = try client.transaction(
                EtcdTransaction(
                    compares: [.unchanged(key, since: first)], success: [.put(key: key, value: bytes("3"))],
                    failure: [.range(.key(key))]))
            #expect(!stale.succeeded)
            guard case .range(let current) = stale.responses.first else {
                Issue.record("expected the failure branch's range, got \(stale.responses)")
                return
            }
            #expect(current.keyValues.first?.valueText == "2")
        }
    }

    @Test func nestedTransactionsCommitTogetherEachDecidedByItsOwnCompare() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let taken = try client.put(bytes("taken"), bytes("old")).header.revision
            let createFree = EtcdTransaction(
                compares: [.absent(bytes("free"))], success: [.put(key: bytes("free"), value: bytes("new"))],
                failure: [.range(.key("free"))])
            let createTaken = EtcdTransaction(
                compares: [.absent(bytes("taken"))], success: [.put(key: bytes("taken"), value: bytes("new"))],
                failure: [.range(.key("taken"))])
            let result = try client.transaction(
                EtcdTransaction(success: [.transaction(createFree), .transaction(createTaken)]))
            #expect(result.succeeded)
            guard result.responses.count == 2, case .transaction(let free) = result.responses[0],
                case .transaction(let refused) = result.responses[1]
            else {
                Issue.record("expected two nested transactions' answers, got \(result.responses)")
                return
            }
            #expect(free.succeeded)
            #expect(!refused.succeeded)
            guard case .range(let current) = refused.responses.first else {
                Issue.record("expected the refused write's read, got \(refused.responses)")
                return
            }
            #expect(current.keyValues.first?.modRevision == taken)
            #expect(try client.get(bytes("free"))?.modRevision == result.header.revision)
            #expect(try client.get(bytes("taken"))?.valueText == "old")
        }
    }

    @Test func fiftyConcurrentPutsFromFiftyThreadsAllSucceed() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let started = ContinuousClock.now
            let revisions = onThreads(50) { index in
                (try? client.put(Array("parallel/\(index)".utf8), Array("\(index)".utf8)))?.header.revision
            }
            let elapsed = ContinuousClock.now - started
            #expect(revisions.count == 50)
            #expect(Set(revisions).count == 50)
            #expect(try client.range(.prefix("parallel/")).count == 50)
            print("50 concurrent puts over the pool took \(elapsed)")
        }
    }

    @Test func leaseRevokeDeletesItsKeysAndKeepAliveOfARevokedLeaseFails() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let lease = try client.grantLease(ttl: 30)
            #expect(lease.ttl == 30)
            try client.put(bytes("session/1"), bytes("x"), lease: lease.id)
            #expect(try client.get(bytes("session/1"))?.lease == lease.id)
            #expect(try client.keepAliveOnce(lease.id).ttl == 30)
            try client.revokeLease(lease.id)
            #expect(try client.get(bytes("session/1")) == nil)
            #expect(throws: EtcdError.self) { try client.keepAliveOnce(lease.id) }
            try client.revokeLease(lease.id)
            let error = #expect(throws: EtcdError.self) { try client.put(bytes("k"), bytes("v"), lease: lease.id) }
            #expect(error?.code == .leaseNotFound)
        }
    }

    @Test func statusGivesTheClusterIDAndALeader() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let status = try client.status()
            #expect(status.clusterID != 0)
            #expect(status.leader == status.header.memberID)
            #expect(status.version.hasPrefix("3."))
        }
    }
}
