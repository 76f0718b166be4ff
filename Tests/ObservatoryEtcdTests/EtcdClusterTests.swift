import ObservatoryTestSupport
import Testing

/// The fixture itself: members come up healthy, and a killed one is down until restarted.
@Suite(.requiresEtcd)
struct EtcdClusterTests {
    @Test func killedMemberIsDownUntilRestarted() throws {
        let cluster = try EtcdCluster(members: 1)
        defer { cluster.stop() }
        let port = cluster.members[0].clientPort
        #expect(EtcdCluster.isHealthy(port: port))
        cluster.kill(0)
        #expect(!EtcdCluster.isHealthy(port: port))
        try cluster.restart(0)
        #expect(EtcdCluster.isHealthy(port: port))
    }
}
