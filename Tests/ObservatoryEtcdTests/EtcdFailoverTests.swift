import ObservatoryEtcd
import ObservatoryTestSupport
import Testing

/// A three-member cluster losing members: requests move to the members left,
/// and without a quorum they fail in bounded time.
@Suite(.requiresEtcd)
struct EtcdFailoverTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The index of a member that is not the leader.
    private func followerIndex(_ cluster: EtcdCluster) throws -> Int {
        for (index, url) in cluster.endpoints.enumerated() {
            let status = try EtcdClient(urls: [url]).status()
            if status.leader != status.header.memberID { return index }
        }
        throw EtcdClusterError(message: "every member says it leads")
    }

    @Test func requestsFailOverToAnotherMemberWhenTheFirstIsDown() async throws {
        try await EtcdCluster.withCluster(members: 3) { cluster in
            // A follower, so that no election is under way: what is tested is the client's move.
            let follower = try followerIndex(cluster)
            cluster.kill(follower)
            let urls =
                [cluster.endpoints[follower]]
                + cluster.endpoints.indices.filter { $0 != follower }.map {
                    cluster.endpoints[$0]
                }
            let client = try EtcdClient(urls: urls, requestTimeout: .seconds(5))
            let put = try client.put(bytes("failover"), bytes("yes"))
            #expect(try client.get(bytes("failover"))?.modRevision == put.header.revision)
            // Later requests start with a member that answers: no connect to the dead one first.
            let started = ContinuousClock.now
            for _ in 0..<20 { _ = try client.get(bytes("failover")) }
            #expect(ContinuousClock.now - started < .seconds(2))
        }
    }

    @Test func putWithoutAQuorumFailsAsUnavailableWithinTheTimeout() async throws {
        try await EtcdCluster.withCluster(members: 3) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints, requestTimeout: .seconds(2))
            try client.put(bytes("before"), bytes("quorum"))
            cluster.kill(1)
            cluster.kill(2)
            let started = ContinuousClock.now
            let error = #expect(throws: EtcdError.self) { try client.put(bytes("after"), bytes("no quorum")) }
            let elapsed = ContinuousClock.now - started
            #expect(error?.code == .unavailable)
            #expect(elapsed < .milliseconds(2_500))
        }
    }
}
