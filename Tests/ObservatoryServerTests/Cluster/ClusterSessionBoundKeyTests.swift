import Foundation
import ObservatoryEtcd
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Session-bound keys in cluster mode live on their node's lease and go with their session.
@Suite(.requiresEtcd, .serialized)
struct ClusterSessionBoundKeyTests {
    @Test func aSessionBoundKeyGoesWhenItsSessionEndsAndEveryNodeSaysWhose() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            // A long time to live: the key must go with the close (its lease revoked), not with an expiry.
            let cluster = try ClusterNodes(2, on: etcd, sessionTTLSeconds: 60)
            let alice = try cluster.client(0, name: "alice")
            let watcher = try cluster.client(1, name: "watcher")
            #expect(try watcher.request(#"{"op":"observe","prefix":"presence."}"#)["ok"] == true)
            let set = try alice.request(#"{"op":"set","key":"presence.alice","value":"here","ephemeral":true}"#)
            #expect(set["ok"] == true)
            let created = try watcher.next()
            #expect(created["ephemeral"] == true)
            #expect(try watcher.request(#"{"op":"get","key":"presence.alice"}"#)["ephemeral"] == true)

            alice.close()
            let ended = try watcher.next(timeout: 30)
            #expect(ended["event"] == "delete")
            #expect(ended["key"] == "presence.alice")
            #expect(ended["author"] == "alice")
            #expect(ended["session"] == created["session"])
            #expect(ended["reason"] == "session_ended")
            #expect(ended["old"] == "here")
        }
    }

    @Test func aNodeThatStopsCleanlyEndsItsSessionsKeysAtOnce() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(2, on: etcd, sessionTTLSeconds: 60)
            let alice = try cluster.client(0, name: "alice")
            let watcher = try cluster.client(1, name: "watcher")
            #expect(try watcher.request(#"{"op":"observe","key":"presence.alice"}"#)["ok"] == true)
            _ = try alice.request(#"{"op":"set","key":"presence.alice","value":"here","ephemeral":true}"#)
            #expect(try watcher.next()["event"] == "update")
            cluster[0].server.stop()
            let ended = try watcher.next(timeout: 30)
            #expect(ended["event"] == "delete")
            #expect(ended["reason"] == "session_ended")
        }
    }

    @Test func aSetWithoutTheFlagMakesTheKeyLastingAgain() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(2, on: etcd)
            let alice = try cluster.client(0, name: "alice")
            let watcher = try cluster.client(1, name: "watcher")
            #expect(try watcher.request(#"{"op":"observe","prefix":"lock."}"#)["ok"] == true)
            _ = try alice.request(#"{"op":"set","key":"lock.a","value":1,"ephemeral":true}"#)
            #expect(try alice.request(#"{"op":"set","key":"lock.a","value":1}"#)["changed"] == true)
            _ = try alice.request(#"{"op":"set","key":"marker","value":1,"ephemeral":true}"#)
            alice.close()
            // Two updates of lock.a, then nothing for it: the session's end deletes only `marker`.
            let events = try (0..<2).map { _ in try watcher.next() }
            #expect(events.map { $0["event"] } == ["update", "update"])
            let probe = try cluster.client(1, name: "probe")
            #expect(
                await eventually(timeout: .seconds(20)) {
                    (try? probe.request(#"{"op":"get","key":"marker"}"#))?["ok"] == false
                })
            #expect(try probe.request(#"{"op":"get","key":"lock.a"}"#)["ok"] == true)
        }
    }

    @Test func aSessionBoundKeyWrittenAfterTheNodesLeaseWasLostGoesOnANewLease() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(1, on: etcd, sessionTTLSeconds: 3)
            let state = try #require(cluster[0].server.clusterState)
            // The node's tag is its lease's id.
            let lost = Int64(bitPattern: try #require(UInt64(state.nodeTag, radix: 36)))
            let etcdClient = try EtcdClient(urls: etcd.endpoints)
            try etcdClient.revokeLease(lost)
            let alice = try cluster.client(0, name: "alice")
            // The node finds its lease gone at a renewal (every second), then grants a new one.
            let set = #"{"op":"set","key":"presence.alice","value":"here","ephemeral":true}"#
            #expect(await eventually(timeout: .seconds(20)) { (try? alice.request(set))?["ok"] == true })
            let stored = try #require(try etcdClient.get(state.layout.valueKey("presence.alice")))
            #expect(stored.lease != 0)
            #expect(stored.lease != lost)
        }
    }

    @Test func theKeysOfANodeThatDiedGoWhenTheirLeaseExpires() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(2, on: etcd, sessionTTLSeconds: 2)
            let alice = try cluster.client(0, name: "alice")
            let watcher = try cluster.client(1, name: "watcher")
            #expect(try watcher.request(#"{"op":"observe","key":"presence.alice"}"#)["ok"] == true)
            _ = try alice.request(#"{"op":"set","key":"presence.alice","value":"here","ephemeral":true}"#)
            #expect(try watcher.next()["event"] == "update")

            // The node stops renewing and revokes nothing, as a node that died.
            let dead = try #require(cluster[0].server.clusterState)
            let diedAt = ContinuousClock.now
            dead.abandon()
            let ended = try watcher.next(timeout: 30)
            #expect(ended["event"] == "delete")
            #expect(ended["reason"] == "session_ended")
            #expect(ended["author"] == "alice")
            // Not before the lease could expire: a revoke would have been at once.
            #expect(ContinuousClock.now - diedAt > .milliseconds(500))
        }
    }
}
