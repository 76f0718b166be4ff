import ObservatoryTestSupport

@testable import ObservatoryServer

/// In-process servers in cluster mode on one etcd cluster and prefix, each on a
/// free loopback port, stopped when the test is done.
final class ClusterNodes {
    let nodes: [TestServer]

    /// Starts `count` nodes on `etcd` under `prefix`, each with `limits.maxKeys` of `maxKeys`.
    init(
        _ count: Int, on etcd: EtcdCluster, prefix: String = "test/", sessionTTLSeconds: Int = 10,
        maxKeys: Int = ServerLimits().maxKeys
    ) throws {
        nodes = try (0..<count).map { _ in
            try TestServer { configuration in
                var cluster = ClusterConfiguration(etcd: etcd.endpoints)
                cluster.prefix = prefix
                cluster.sessionTTLSeconds = sessionTTLSeconds
                cluster.requestTimeoutMilliseconds = 3_000
                configuration.cluster = cluster
                configuration.limits.maxKeys = maxKeys
            }
        }
    }

    subscript(index: Int) -> TestServer {
        nodes[index]
    }

    /// A connection to node `index` that said hello as `name`.
    func client(_ index: Int, name: String) throws -> LineClient {
        let client = try nodes[index].client()
        _ = try client.request(#"{"op":"hello","name":"\#(name)"}"#)
        return client
    }
}
