import ObservatoryEtcd
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A resume from further back than a node's own history is read back from etcd
/// (docs/protocol.md, "Cluster mode": a client may resume on any node from any
/// revision etcd has not compacted away), and gets a snapshot once etcd has
/// compacted that far.
@Suite(.requiresEtcd, .serialized)
struct ClusterResumeFromEtcdTests {
    /// Makes node `index`'s own history forget all but its newest change, as its
    /// caps do after many changes: the configuration keeps them at 10,000 changes
    /// and 64 MiB or more, too many to write in a test.
    private func forgetHistory(of nodes: ClusterNodes, _ index: Int) {
        nodes[index].server.store.guarded.withLock { $0.history.limitBytes(to: 0) }
    }

    /// A watcher of `sky.` on node 0 and its resume point; then, on node 0, 40
    /// changes of other keys with 17 changes of `sky.` among them (sets, a delete,
    /// a session-bound key that goes with its session), which the watcher sees live.
    private func missedChanges(on nodes: ClusterNodes) throws -> (
        from: Int64, epoch: JSONValue, live: [[UInt8]], last: Int64
    ) {
        let watcher = try nodes.client(0, name: "watcher")
        let from = try #require(try watcher.request(#"{"op":"observe","prefix":"sky."}"#)["revision"]?.integerValue)
        let epoch = try #require(try watcher.request(#"{"op":"ping"}"#)["epoch"])
        let alice = try nodes.client(0, name: "alice")
        for index in 0..<40 {
            _ = try alice.request(#"{"op":"set","key":"noise.\#(index % 7)","value":\#(index)}"#)
            if index % 3 == 0 { _ = try alice.request(#"{"op":"set","key":"sky.color","value":\#(index)}"#) }
        }
        _ = try alice.request(#"{"op":"set","key":"sky.here","value":true,"ephemeral":true}"#)
        _ = try alice.request(#"{"op":"delete","key":"sky.color"}"#)
        alice.close()
        let live = try (0..<17).map { _ in try #require(try watcher.nextLine()) }
        let lastEvent = try JSONValue.parse(try #require(live.last))
        let last = try #require(lastEvent["version"]?.integerValue)
        return (from, epoch, live, last)
    }

    /// Waits until node 1 has applied the missed changes, makes it forget them
    /// (`forgetHistory`), runs `beforeResuming`, then resumes the watcher on node 1:
    /// its connection and the `observe` reply.
    private func resumeOnNodeThatForgot(
        _ nodes: ClusterNodes, _ missed: (from: Int64, epoch: JSONValue, live: [[UInt8]], last: Int64),
        beforeResuming: () throws -> Void = {}
    ) throws -> (LineClient, JSONValue) {
        let pinger = try nodes.client(1, name: "pinger")
        try waitUntil("node 1 applied \(missed.last)") {
            try pinger.request(#"{"op":"ping"}"#)["revision"]?.integerValue ?? 0 >= missed.last
        }
        forgetHistory(of: nodes, 1)
        try beforeResuming()
        let resumer = try nodes.client(1, name: "watcher")
        let reply = try resumer.request(
            #"{"op":"observe","prefix":"sky.","fromRevision":\#(missed.from),"epoch":\#(missed.epoch)}"#)
        return (resumer, reply)
    }

    @Test func aResumeFromBeforeTheNodesHistoryReplaysWhatEtcdHoldsThenLiveEvents() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let nodes = try ClusterNodes(2, on: etcd)
            let missed = try missedChanges(on: nodes)
            let (resumer, reply) = try resumeOnNodeThatForgot(nodes, missed)
            #expect(reply["resumed"] == true, "\(reply)")
            let replayed = try missed.live.indices.map { _ in try #require(try resumer.nextLine()) }
            #expect(replayed == missed.live, "exactly the missed events, in order, as first sent on node 0")

            let bob = try nodes.client(0, name: "bob")
            let version = try #require(
                try bob.request(#"{"op":"set","key":"sky.color","value":"blue"}"#)["version"]?.integerValue)
            let next = try JSONValue.parse(try #require(try resumer.nextLine()))
            #expect(next["version"]?.integerValue == version, "the live event follows, nothing repeated: \(next)")
        }
    }

    @Test func aResumeFromRevisionsEtcdHasCompactedGetsASnapshot() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let nodes = try ClusterNodes(2, on: etcd)
            let missed = try missedChanges(on: nodes)
            let (_, reply) = try resumeOnNodeThatForgot(nodes, missed) {
                try EtcdClient(urls: etcd.endpoints).compact(missed.last - 5)
            }
            #expect(reply["resumed"] == false, "\(reply)")
            #expect(reply["values"] == [], "sky.color was deleted, sky.here went with its session: \(reply)")
            #expect(reply["revision"]?.integerValue ?? 0 >= missed.last)
        }
    }

    @Test func aReplayEndsAtARevisionWithNoChangeUnderThePrefixOnEtcdsProgressReport() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let nodes = try ClusterNodes(1, on: etcd)
            let alice = try nodes.client(0, name: "alice")
            let from = try #require(try alice.request(#"{"op":"ping"}"#)["revision"]?.integerValue)
            _ = try alice.request(#"{"op":"set","key":"sky.color","value":"red"}"#)
            // The node reloads at a revision outside its prefix: no change under it there or after.
            let foreign = try EtcdClient(urls: etcd.endpoints).put(Array("elsewhere/x".utf8), Array("1".utf8))
            let state = try #require(nodes[0].server.clusterState)
            state.handle(.compacted(compactRevision: 0))
            try waitUntil("the node reloaded at \(foreign.header.revision)") {
                try alice.request(#"{"op":"ping"}"#)["revision"]?.integerValue ?? 0 >= foreign.header.revision
            }

            let resumer = try nodes.client(0, name: "watcher")
            let reply = try resumer.request(#"{"op":"observe","prefix":"sky.","fromRevision":\#(from)}"#)
            // No event of the replay's watch reaches that revision; etcd's progress report says it caught up.
            #expect(reply["resumed"] == true, "\(reply)")
            #expect(reply["revision"]?.integerValue == foreign.header.revision)
            #expect(try resumer.next()["new"] == "red")
        }
    }

}
