import ObservatoryEtcd
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A node starts with etcd's recent history in its resume window, so an observer
/// resumes on it from before it started (docs/protocol.md, "Cluster mode": a client may
/// resume on any node from any revision etcd has not compacted away).
@Suite(.requiresEtcd, .serialized)
struct ClusterHistoryStartTests {
    @Test func aNodeStartedLaterResumesFromBeforeItsStartWithTheEventsAsFirstSent() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let first = try ClusterNodes(1, on: etcd)
            let watcher = try first.client(0, name: "watcher")
            let observed = try watcher.request(#"{"op":"observe","prefix":"sky."}"#)
            let from = try #require(observed["revision"]?.integerValue)
            let epoch = try #require(observed["ok"] == true ? try watcher.request(#"{"op":"ping"}"#)["epoch"] : nil)
            let alice = try first.client(0, name: "alice")
            _ = try alice.request(#"{"op":"set","key":"sky.color","value":"red"}"#)
            _ = try alice.request(#"{"op":"set","key":"sky.here","value":true,"ephemeral":true}"#)
            _ = try alice.request(#"{"op":"delete","key":"sky.color"}"#)
            alice.close()
            // Four events: two updates, the delete, and the session-bound key going with its session.
            let live = try (0..<4).map { _ in try #require(try watcher.nextLine()) }

            let later = try ClusterNodes(1, on: etcd)
            let resumer = try later.client(0, name: "watcher")
            let reply = try resumer.request(
                #"{"op":"observe","prefix":"sky.","fromRevision":\#(from),"epoch":\#(epoch)}"#)
            #expect(reply["resumed"] == true, "\(reply)")
            let replayed = try (0..<4).map { _ in try #require(try resumer.nextLine()) }
            #expect(replayed == live, "the same bytes as first sent on the other node")
        }
    }

    @Test func aNodeStartsOnAnEtcdCompactedPastItsWindowWithTheCurrentState() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let first = try ClusterNodes(1, on: etcd)
            let alice = try first.client(0, name: "alice")
            let before = try #require(try alice.request(#"{"op":"ping"}"#)["revision"]?.integerValue)
            _ = try alice.request(#"{"op":"set","key":"a","value":1}"#)
            let last = try #require(try alice.request(#"{"op":"set","key":"a","value":2}"#)["version"]?.integerValue)
            try EtcdClient(urls: etcd.endpoints).compact(last)

            let later = try ClusterNodes(1, on: etcd)
            let client = try later.client(0, name: "bob")
            #expect(try client.request(#"{"op":"get","key":"a"}"#)["value"] == 2)
            let reply = try client.request(#"{"op":"observe","key":"a","fromRevision":\#(before)}"#)
            #expect(reply["resumed"] == false, "etcd no longer holds those changes: \(reply)")
            #expect(reply["values"]?[0]?["value"] == 2)
        }
    }
}
