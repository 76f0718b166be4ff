import ObservatoryEtcd
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Two nodes on one etcd serve one state (docs/protocol.md, "Cluster mode").
@Suite(.requiresEtcd, .serialized)
struct ClusterStateTests {
    @Test func writesOnEitherNodeReachObserversOnTheOtherWithAuthorsInRevisionOrder() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(2, on: etcd)
            let alice = try cluster.client(0, name: "alice")
            let bob = try cluster.client(1, name: "bob")
            let watcher = try cluster.client(1, name: "watcher")
            let aliceSession = try alice.request(#"{"op":"ping"}"#)
            #expect(aliceSession["epoch"] == (try bob.request(#"{"op":"ping"}"#))["epoch"])
            #expect(try watcher.request(#"{"op":"observe","prefix":"sky."}"#)["ok"] == true)

            let created = try alice.request(#"{"op":"set","key":"sky.color","value":"red"}"#)
            let sized = try bob.request(#"{"op":"set","key":"sky.size","value":3}"#)
            // Bob deletes what Alice created: the delete event names him, not the key's owner.
            let deleted = try bob.request(#"{"op":"delete","key":"sky.color"}"#)
            let versions = [created, sized, deleted].compactMap { $0["version"]?.integerValue }
            #expect(versions.count == 3 && versions == versions.sorted() && Set(versions).count == 3)

            let events = try (0..<3).map { _ in try watcher.next() }
            #expect(events.map { $0["event"] } == ["update", "update", "delete"])
            #expect(events.map { $0["author"] } == ["alice", "bob", "bob"])
            #expect(events.compactMap { $0["version"]?.integerValue } == versions)
            #expect(events[2]["old"] == "red")
            #expect(events[1]["session"] == events[2]["session"])
            #expect(events[0]["session"] != events[1]["session"])

            let read = try alice.request(#"{"op":"get","key":"sky.size"}"#)
            #expect(read["author"] == "bob")
            #expect(read["value"] == 3)
        }
    }

    @Test func aWriteIsAppliedOnItsNodeBeforeItIsAnswered() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(1, on: etcd)
            let alice = try cluster.client(0, name: "alice")
            try alice.send(
                #"{"op":"set","key":"a","value":1,"id":1}"#, #"{"op":"set","key":"a","value":2,"id":2}"#,
                #"{"op":"get","key":"a","id":3}"#, #"{"op":"ping","id":4}"#)
            let replies = try (0..<4).map { _ in try alice.next() }
            #expect(replies.map { $0["id"] } == [1, 2, 3, 4])
            #expect(replies[2]["value"] == 2)
            #expect(replies[2]["version"] == replies[1]["version"])
            let applied = try #require(replies[3]["revision"]?.integerValue)
            #expect(applied >= (replies[1]["version"]?.integerValue ?? .max))
        }
    }

    @Test func aSetWithAnEqualValueChangesNothing() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(2, on: etcd)
            let alice = try cluster.client(0, name: "alice")
            let bob = try cluster.client(1, name: "bob")
            let first = try alice.request(#"{"op":"set","key":"k","value":{"x":[1,2]}}"#)
            let again = try bob.request(#"{"op":"set","key":"k","value":{"x":[1,2]}}"#)
            #expect(again["changed"] == false)
            #expect(again["version"] == first["version"])
            #expect(try bob.request(#"{"op":"get","key":"k"}"#)["author"] == "alice")
        }
    }

    @Test func exactlyOneOfTwoConditionalWritesOnDifferentNodesWins() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(2, on: etcd)
            let alice = try cluster.client(0, name: "alice")
            let bob = try cluster.client(1, name: "bob")
            for round in 0..<5 {
                // Create-only: both believe the key is absent.
                try alice.send(#"{"op":"set","key":"lock\#(round)","value":"alice","ifVersion":0}"#)
                try bob.send(#"{"op":"set","key":"lock\#(round)","value":"bob","ifVersion":0}"#)
                let created = [try alice.next(), try bob.next()]
                #expect(created.filter { $0["ok"] == true }.count == 1)
                let winner = try #require(created.first { $0["ok"] == true })
                let loser = try #require(created.first { $0["ok"] == false })
                #expect(loser["error"]?["code"] == "conflict")
                #expect(loser["error"]?["version"] == winner["version"])

                // Compare-and-swap from the same version.
                let version = try #require(winner["version"]?.integerValue)
                try alice.send(#"{"op":"set","key":"lock\#(round)","value":"a2","ifVersion":\#(version)}"#)
                try bob.send(#"{"op":"set","key":"lock\#(round)","value":"b2","ifVersion":\#(version)}"#)
                let swapped = [try alice.next(), try bob.next()]
                #expect(swapped.filter { $0["ok"] == true }.count == 1)
            }
        }
    }

    @Test func concurrentWritersOfOneKeyOnOneNodeAreAllApplied() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(1, on: etcd)
            let writers = try (0..<4).map { try cluster.client(0, name: "writer\($0)") }
            let writesEach = 50
            for (index, writer) in writers.enumerated() {
                let frames = (0..<writesEach).map { #"{"op":"set","key":"hot","value":"w\#(index)-\#($0)"}"# }
                try writer.sendBytes(Array(frames.joined(separator: "\n").utf8) + [10])
            }
            var failures: [JSONValue] = []
            for writer in writers {
                for _ in 0..<writesEach {
                    let reply = try writer.next()
                    if reply["ok"] != true { failures.append(reply) }
                }
            }
            #expect(failures.isEmpty, "every write of a contested key is applied: \(failures)")
        }
    }

    @Test func aKeyCreatedAgainAfterItsDeleteLeavesNoDeletionMarkerInEtcd() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(2, on: etcd)
            let alice = try cluster.client(0, name: "alice")
            let bob = try cluster.client(1, name: "bob")
            let layout = ClusterKeyLayout(prefix: "test/")
            let etcdClient = try EtcdClient(urls: etcd.endpoints)
            #expect(try alice.request(#"{"op":"set","key":"lamp","value":1}"#)["ok"] == true)
            let deleted = try bob.request(#"{"op":"delete","key":"lamp"}"#)
            #expect(try etcdClient.get(layout.deletionKey("lamp")) != nil, "the delete names its author")
            // Node 0's watch saw the marker that node 1 wrote: its create removes it.
            let revision = try #require(deleted["version"]?.integerValue)
            try waitUntil("node 0 applied the delete") {
                (try alice.request(#"{"op":"ping"}"#)["revision"]?.integerValue ?? 0) >= revision
            }
            #expect(try alice.request(#"{"op":"set","key":"lamp","value":2}"#)["ok"] == true)
            #expect(try etcdClient.get(layout.deletionKey("lamp")) == nil)
        }
    }
}
