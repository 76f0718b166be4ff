import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Retried writes, resuming elsewhere, and a cluster without quorum.
@Suite(.requiresEtcd, .serialized)
struct ClusterFailureTests {
    @Test func aRetriedWriteIsAppliedOnceWhicheverNodeItReaches() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(2, on: etcd)
            let alice = try cluster.client(0, name: "alice")
            let retry = try cluster.client(1, name: "alice")
            let first = try alice.request(#"{"op":"set","key":"k","value":1,"requestId":"r-1"}"#)
            #expect(first["changed"] == true)
            _ = try alice.request(#"{"op":"set","key":"k","value":5}"#)
            let again = try retry.request(#"{"op":"set","key":"k","value":1,"requestId":"r-1"}"#)
            #expect(again["duplicate"] == true)
            #expect(again["version"] == first["version"])
            #expect(again["changed"] == true)
            // The other node applies alice's later write when its watch brings it:
            // a read there is not ordered after a write made on another node.
            try waitUntil("the later value on the other node") {
                try retry.request(#"{"op":"get","key":"k"}"#)["value"] == 5
            }

            let deleted = try alice.request(#"{"op":"delete","key":"k","requestId":"r-2"}"#)
            let deletedAgain = try retry.request(#"{"op":"delete","key":"k","requestId":"r-2"}"#)
            #expect(deletedAgain["ok"] == true)
            #expect(deletedAgain["duplicate"] == true)
            #expect(deletedAgain["version"] == deleted["version"])
        }
    }

    @Test func anObserverResumesOnAnotherNodeFromWhereItStopped() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(2, on: etcd)
            let alice = try cluster.client(0, name: "alice")
            let watcher = try cluster.client(0, name: "watcher")
            let observed = try watcher.request(#"{"op":"observe","prefix":"sky."}"#)
            let epoch = try #require(try watcher.request(#"{"op":"ping"}"#)["epoch"]?.stringValue)
            let from = try #require(observed["revision"]?.integerValue)
            watcher.close()
            _ = try alice.request(#"{"op":"set","key":"sky.color","value":"red"}"#)
            _ = try alice.request(#"{"op":"set","key":"sky.color","value":"blue"}"#)

            let resumed = try cluster.client(1, name: "watcher")
            // Resuming where that node has not applied the writes yet would replay fewer.
            #expect(await eventually { cluster[1].server.store.get("sky.color")?.value == "blue" })
            let reply = try resumed.request(
                #"{"op":"observe","prefix":"sky.","fromRevision":\#(from),"epoch":"\#(epoch)"}"#)
            #expect(reply["resumed"] == true)
            let replayed = try (0..<2).map { _ in try resumed.next() }
            #expect(replayed.map { $0["new"] } == ["red", "blue"])
            #expect(replayed[1]["old"] == "red")
            #expect(replayed.allSatisfy { $0["author"] == "alice" })
        }
    }

    @Test func withoutQuorumWritesAnswerUnavailableAndReadsGoOn() async throws {
        try await EtcdCluster.withCluster(members: 3) { etcd in
            let cluster = try ClusterNodes(1, on: etcd)
            let alice = try cluster.client(0, name: "alice")
            let written = try alice.request(#"{"op":"set","key":"k","value":1}"#)
            #expect(written["ok"] == true)
            etcd.kill(1)
            etcd.kill(2)

            let started = ContinuousClock.now
            let refused = try alice.request(#"{"op":"set","key":"k","value":2,"id":7}"#)
            #expect(refused["ok"] == false)
            #expect(refused["id"] == 7)
            #expect(refused["error"]?["code"] == "unavailable")
            // The request timeout is 3 s: well within a few seconds, never a hang.
            #expect(ContinuousClock.now - started < .seconds(15))

            let read = try alice.request(#"{"op":"get","key":"k"}"#)
            #expect(read["value"] == 1)
            let applied = try alice.request(#"{"op":"ping"}"#)["revision"]?.integerValue ?? 0
            #expect(applied >= written["version"]?.integerValue ?? .max)
        }
    }
}
