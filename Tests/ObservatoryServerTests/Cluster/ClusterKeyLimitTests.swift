import Dispatch
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// `limits.maxKeys` in cluster mode (docs/cluster.md): decided by each node from
/// its cache and its own creates in flight, and from etcd's count near the limit.
@Suite(.requiresEtcd, .serialized)
struct ClusterKeyLimitTests {
    @Test func creatingBeyondMaxKeysFailsOnEveryNodeWhicheverNodeCreatedTheKeys() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(2, on: etcd, maxKeys: 3)
            let alice = try cluster.client(0, name: "alice")
            let bob = try cluster.client(1, name: "bob")
            #expect(try alice.request(#"{"op":"set","key":"a","value":1}"#)["ok"] == true)
            #expect(try alice.request(#"{"op":"set","key":"b","value":1}"#)["ok"] == true)
            #expect(try bob.request(#"{"op":"set","key":"c","value":1}"#)["ok"] == true)

            // Node 0 may not have applied c yet: near the limit it asks etcd.
            let refused = try alice.request(#"{"op":"set","key":"d","value":1}"#)
            #expect(refused["error"]?["code"] == "limit_exceeded", "\(refused)")
            #expect(refused["error"]?["message"]?.stringValue?.contains("limits.maxKeys") == true, "\(refused)")
            let refusedToo = try bob.request(#"{"op":"set","key":"e","value":1}"#)
            #expect(refusedToo["error"]?["code"] == "limit_exceeded", "\(refusedToo)")
            #expect(try bob.request(#"{"op":"set","key":"a","value":2}"#)["ok"] == true, "changes still work")

            // Node 0 may not have applied the delete yet: etcd's count says there is room again.
            #expect(try bob.request(#"{"op":"delete","key":"b"}"#)["ok"] == true)
            #expect(try alice.request(#"{"op":"set","key":"d","value":1}"#)["ok"] == true)
        }
    }

    @Test func concurrentCreatesOnOneNodeNeverPassTheLimit() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(1, on: etcd, maxKeys: 5)
            let writers = try (0..<12).map { try cluster.client(0, name: "writer\($0)") }
            // Every writer's create is in flight before any reply is read.
            for (index, writer) in writers.enumerated() {
                try writer.send(#"{"op":"set","key":"key\#(index)","value":\#(index)}"#)
            }
            let replies = try writers.map { try $0.next() }
            #expect(replies.filter { $0["ok"] == true }.count == 5, "\(replies)")
            #expect(replies.filter { $0["error"]?["code"] == "limit_exceeded" }.count == 7, "\(replies)")
            let listed = try writers[0].request(#"{"op":"list"}"#)
            #expect(listed["keys"]?.arrayValue?.count == 5, "\(listed)")
        }
    }
}
