import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A node whose etcd watch lost continuity reloads the state and sends its
/// observers away to resume.
@Suite(.requiresEtcd, .serialized)
struct ClusterRecoveryTests {
    @Test func aCompactedWatchReloadsTheStateAndClosesObserversWithTheRevision() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(1, on: etcd)
            let alice = try cluster.client(0, name: "alice")
            let watcher = try cluster.client(0, name: "watcher")
            let observed = try watcher.request(#"{"op":"observe","prefix":"sky."}"#)
            let written = try alice.request(#"{"op":"set","key":"sky.color","value":"red"}"#)
            #expect(try watcher.next()["new"] == "red")
            let state = try #require(cluster[0].server.clusterState)

            // As the watch reports when etcd compacted past it.
            state.handle(.compacted(compactRevision: try #require(written["version"]?.integerValue)))
            let closing = try watcher.readUntilClosed()
            let error = try #require(closing.last)
            #expect(error["ok"] == false)
            #expect(error["id"] == .null)
            #expect(error["error"]?["code"] == "unavailable")
            let reloadedAt = try #require(error["error"]?["revision"]?.integerValue)
            #expect(reloadedAt >= written["version"]?.integerValue ?? .max)

            // The writer observes nothing and stays; the new watch applies its next write.
            let next = try alice.request(#"{"op":"set","key":"sky.color","value":"blue"}"#)
            #expect(next["ok"] == true)
            let fresh = try cluster.client(0, name: "fresh")
            let from = try #require(observed["revision"]?.integerValue)
            let resumed = try fresh.request(#"{"op":"observe","prefix":"sky.","fromRevision":\#(from)}"#)
            // The reload forgot the node's history, but etcd (not really compacted here) still holds it.
            #expect(resumed["resumed"] == true, "\(resumed)")
            #expect(try fresh.next()["new"] == "red")
            #expect(try fresh.next()["new"] == "blue")
        }
    }
}
