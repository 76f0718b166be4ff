import ObservatoryEtcd
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// `history` in cluster mode: every node answers from its own window, and a
/// change's `at` travels in etcd, so every node reports the same time for it.
@Suite(.serialized) struct ClusterHistoryTests {
    /// A node started after the changes replays them from etcd's history: their
    /// `at` must be the writer's, not the time this node read them.
    @Test(.requiresEtcd) func everyNodeReportsAChangeWithTheSameAtAndAuthor() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let writer = try ClusterNodes(1, on: etcd)
            let alice = try writer.client(0, name: "alice")
            _ = try alice.request(#"{"op":"set","key":"door.locked","value":true}"#)
            _ = try alice.request(#"{"op":"delete","key":"door.locked"}"#)
            let onWriter = try alice.request(#"{"op":"history","key":"door.locked"}"#)
            let changes = try #require(onWriter["changes"]?.arrayValue)
            #expect(changes.count == 2, "\(onWriter)")
            #expect(changes.allSatisfy { $0["author"] == "alice" }, "\(changes)")
            let latest = changes.compactMap { $0["at"]?.integerValue }.max() ?? 0
            #expect(latest > 0, "\(changes)")
            // The clock moves past the changes before the second node starts and reads them.
            #expect(await eventually { StoreChange.now() > latest + 20 })
            let later = try ClusterNodes(1, on: etcd)
            let bob = try later.client(0, name: "bob")
            let onOther = try bob.request(#"{"op":"history","key":"door.locked"}"#)
            #expect(onOther["changes"] == onWriter["changes"], "\(onOther) vs \(onWriter)")
        }
    }

    @Test func anEnvelopeCarriesItsTimeAndAWatchEventsTimeComesFromIt() {
        let alice = Author(name: "alice", session: "sa.1")
        let envelope = ClusterEnvelope(value: "red", author: alice, at: 1_764_301_234_567)
        #expect(ClusterEnvelope.decode(envelope.encoded())?.at == 1_764_301_234_567)
        #expect(ClusterEnvelope.decode(Array(#"{"value":1,"author":"a","session":"s"}"#.utf8))?.at == nil)
        let layout = ClusterKeyLayout(prefix: "obs/")
        let times = ClusterEventMapper.times(
            from: [
                EtcdWatchEvent.put("obs/k/sky", envelope, revision: 4),
                EtcdWatchEvent.put("obs/d/sea", ClusterEnvelope(value: nil, author: alice, at: 99), revision: 5),
                EtcdWatchEvent.delete("obs/k/sea", revision: 5),
            ], layout: layout)
        #expect(times == [4: 1_764_301_234_567, 5: 99])
    }
}
