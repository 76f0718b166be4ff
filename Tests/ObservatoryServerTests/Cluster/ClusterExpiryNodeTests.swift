import Foundation
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Expiring keys across cluster nodes: etcd deletes them with their lease and
/// every node announces the expiry; a restart of the clock on another node
/// keeps the key's version there and here.
@Suite(.requiresEtcd, .serialized)
struct ClusterExpiryNodeTests {
    @Test func aKeyExpiresOnItsLeaseAndAnotherNodeAnnouncesItInTheNameOfItsWriter() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(2, on: etcd)
            let alice = try cluster.client(0, name: "alice")
            let watcher = try cluster.client(1, name: "watcher")
            #expect(try watcher.request(#"{"op":"observe","prefix":"door."}"#)["ok"] == true)
            let set = try alice.request(#"{"op":"set","key":"door.a","value":true,"ttl":1}"#)
            #expect(set["ok"] == true)
            let created = try watcher.next()
            #expect(created["ttl"] == 1)
            let expired = try watcher.next(timeout: 10)
            #expect(expired["event"] == "delete")
            #expect(expired["reason"] == "expired")
            #expect(expired["author"] == "alice")
            #expect(expired["session"] == created["session"])
            // Each node counts the expired deletes its watch announced.
            for node in 0..<2 {
                try waitUntil("node \(node) counts the expiry", timeout: .seconds(5)) {
                    String(decoding: cluster[node].server.metricsPage(), as: UTF8.self).contains(
                        "\nobservatory_expired_total 1\n")
                }
            }
        }
    }

    @Test func aRestartOnAnotherNodeKeepsTheVersionOnBothAndAnnouncesNothing() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(2, on: etcd)
            let alice = try cluster.client(0, name: "alice")
            let bob = try cluster.client(1, name: "bob")
            #expect(try alice.request(#"{"op":"observe","key":"lamp"}"#)["ok"] == true)
            let set = try alice.request(#"{"op":"set","key":"lamp","value":1,"ttl":1}"#)
            let version = try #require(set["version"]?.integerValue)
            #expect(try alice.next()["event"] == "update")
            let restarted = try bob.request(#"{"op":"set","key":"lamp","value":1,"ttl":60}"#)
            #expect(restarted["changed"] == false)
            #expect(restarted["version"]?.integerValue == version)
            // The first clock has run out: had the restart not moved the key to a later lease, it would be gone.
            let stopped = ContinuousClock.now
            try waitUntil("the first clock runs out", timeout: .seconds(5)) {
                ContinuousClock.now >= stopped + .seconds(3)
            }
            let read = try alice.request(#"{"op":"get","key":"lamp"}"#)
            #expect(read["version"]?.integerValue == version)
            #expect((56...60).contains(read["ttl"]?.integerValue ?? 0), "\(read)")
            let guarded = try alice.request(#"{"op":"set","key":"lamp","value":2,"ifVersion":\#(version)}"#)
            #expect(guarded["ok"] == true, "\(guarded)")
            let next = try alice.next()
            #expect(next["event"] == "update", "\(next)")
            #expect(next["new"] == 2, "no event for the restart: \(next)")
        }
    }
}
