import Foundation
import ObservatoryServer
import ObservatoryTestSupport

/// A server under test, seen as a client in another language sees it: its port
/// and raw connections (`WireClient`, Foundation's JSON), nothing of the
/// server's insides beyond its public API. The server itself is the test kit's
/// `TestServer`, so every suite starts and stops servers the same way.
struct RunningServer {
    /// The server under test (public API only).
    let server: Server

    /// The port it listens on.
    var port: Int { server.port }

    /// What the test may expect of its revision numbers: a cluster node's may skip numbers.
    var revisions: RevisionRule { RevisionRule(isCluster: server.configuration.cluster != nil) }

    /// Opens a new raw client connection to the server.
    func connect(receiveBufferBytes: Int32? = nil) throws -> WireClient {
        try WireClient(port: port, receiveBufferBytes: receiveBufferBytes)
    }

    /// Opens a client and says `hello` with `name` (no hello at all when `nil`).
    func connect(name: String?) throws -> WireClient {
        let client = try connect()
        if let name {
            _ = try client.call(["op": "hello", "name": name])
        }
        return client
    }
}

/// Runs `body` against a fresh server configured by `configure`, then stops it.
func withServer<Result>(
    _ configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (RunningServer) throws -> Result
) throws -> Result {
    var configuration = ServerConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    // In memory unless a test gives a data directory.
    configuration.fsync = .none
    // Short grace: stop() must not wait long for test clients that never read.
    configuration.shutdownGraceMilliseconds = 300
    configure(&configuration)
    clusterUnderTest(&configuration)
    let running = try TestServer(configuration: configuration)
    defer { running.stop() }
    return try body(RunningServer(server: running.server))
}

/// With `OBSERVATORY_CONFORMANCE_ETCD` set (etcd client URLs, comma-separated),
/// the suite runs against cluster nodes on those members, each test's server on
/// a prefix of its own; tests of local storage keep it.
private func clusterUnderTest(_ configuration: inout ServerConfiguration) {
    guard configuration.fsync == .none,
        let urls = ProcessInfo.processInfo.environment["OBSERVATORY_CONFORMANCE_ETCD"], !urls.isEmpty
    else { return }
    var cluster = ClusterConfiguration(etcd: urls.split(separator: ",").map(String.init))
    cluster.prefix = "conformance/\(UInt64.random(in: 0...UInt64.max))/"
    configuration.cluster = cluster
}
