import Observatory
import ObservatoryEtcd
import ObservatoryTestSupport
import Testing

/// The lease keeper against a real member: renewals, loss, prompt stop.
@Suite(.requiresEtcd)
struct EtcdLeaseKeeperTests {
    @Test func keeperKeepsAShortLeaseAndItsKeyAliveBeyondItsTimeToLive() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let lease = try client.grantLease(ttl: 2)
            try client.put(Array("session".utf8), Array("alive".utf8), lease: lease.id)
            let losses = Locked<[EtcdError]>([])
            let keeper = EtcdLeaseKeeper(client: client, lease: lease) { error in losses.withLock { $0.append(error) } }
            defer { keeper.stop() }
            // Renewals every ~0.67 s: five take over three seconds, past the 2 s time to live.
            try waitUntil { keeper.renewalCount >= 5 }
            #expect(try client.get(Array("session".utf8)) != nil)
            #expect(losses.withLock { $0.isEmpty })
        }
    }

    @Test func revokedLeaseIsReportedAsNotFound() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let lease = try client.grantLease(ttl: 3)
            let losses = Locked<[EtcdError]>([])
            let keeper = EtcdLeaseKeeper(client: client, lease: lease, interval: .milliseconds(100)) { error in
                losses.withLock { $0.append(error) }
            }
            defer { keeper.stop() }
            try waitUntil { keeper.renewalCount >= 1 }
            try client.revokeLease(lease.id)
            try waitUntil { !losses.withLock { $0.isEmpty } }
            #expect(losses.withLock { $0.map(\.code) } == [.leaseNotFound])
        }
    }

    @Test func unreachableClusterIsReportedAsUnavailableOnceTheTimeToLivePassed() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            // A request timeout longer than the lease: the keeper must not wait it out.
            let client = try EtcdClient(urls: cluster.endpoints, requestTimeout: .seconds(10))
            let lease = try client.grantLease(ttl: 2)
            let losses = Locked<[EtcdError]>([])
            let keeper = EtcdLeaseKeeper(client: client, lease: lease) { error in losses.withLock { $0.append(error) } }
            defer { keeper.stop() }
            cluster.kill(0)
            let killed = ContinuousClock.now
            try waitUntil { !losses.withLock { $0.isEmpty } }
            let elapsed = ContinuousClock.now - killed
            #expect(losses.withLock { $0.map(\.code) } == [.unavailable])
            #expect(elapsed < .milliseconds(2_500))
        }
    }

    @Test func oneKeeperKeepsSeveralLeasesAndReportsOnlyTheOneLost() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let kept = try client.grantLease(ttl: 2)
            let revoked = try client.grantLease(ttl: 2)
            try client.put(Array("kept".utf8), Array("alive".utf8), lease: kept.id)
            let losses = Locked<[Int64]>([])
            let keeper = EtcdLeaseKeeper(client: client)
            defer { keeper.stop() }
            for lease in [kept, revoked] {
                keeper.keep(lease) { _ in losses.withLock { $0.append(lease.id) } }
            }
            try client.revokeLease(revoked.id)
            try waitUntil { !losses.withLock { $0.isEmpty } }
            // Past the 2 s time to live of the one still kept.
            try waitUntil { keeper.renewalCount >= 4 }
            #expect(losses.withLock { $0 } == [revoked.id])
            #expect(keeper.leaseIDs == [kept.id])
            #expect(try client.get(Array("kept".utf8)) != nil)
        }
    }

    @Test func stopReturnsPromptlyDuringALongInterval() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let lease = try client.grantLease(ttl: 60)
            let keeper = EtcdLeaseKeeper(client: client, lease: lease) { _ in }
            let started = ContinuousClock.now
            keeper.stop()
            #expect(ContinuousClock.now - started < .milliseconds(500))
            try client.revokeLease(lease.id)
        }
    }
}
