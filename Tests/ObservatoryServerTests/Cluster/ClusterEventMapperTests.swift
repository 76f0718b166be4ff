import ObservatoryEtcd
import ObservatoryWire
import Testing

@testable import ObservatoryServer

@Suite struct ClusterEventMapperTests {
    private let layout = ClusterKeyLayout(prefix: "obs/")
    private let alice = Author(name: "alice", session: "sa.1")

    @Test func aPutOfAValueKeyIsASetByItsAuthor() {
        let changes = ClusterEventMapper.changes(
            from: [
                EtcdWatchEvent.put(
                    "obs/k/sky", ClusterEnvelope(value: "red", author: alice, sessionBound: true), revision: 4)
            ],
            layout: layout)
        let entry = RawValueEntry(
            key: "sky", value: "red", version: 4, author: "alice", session: "sa.1", sessionBound: true)
        #expect(changes == [.set(entry)])
    }

    @Test func aDeleteTakesItsAuthorFromTheMarkerOfTheSameRevision() {
        let changes = ClusterEventMapper.changes(
            from: [
                EtcdWatchEvent.put("obs/d/sky", ClusterEnvelope(value: nil, author: alice), revision: 9),
                EtcdWatchEvent.delete("obs/k/sky", revision: 9),
            ], layout: layout)
        #expect(changes == [.delete(key: "sky", version: 9, author: alice)])
    }

    @Test func aDeleteWithoutAMarkerHasNoAuthor() {
        let changes = ClusterEventMapper.changes(
            from: [
                EtcdWatchEvent.put("obs/d/sky", ClusterEnvelope(value: nil, author: alice), revision: 8),
                EtcdWatchEvent.delete("obs/k/sky", revision: 9),
            ], layout: layout)
        #expect(changes == [.delete(key: "sky", version: 9, author: nil)])
    }

    @Test func markersRequestIdsAndForeignValuesChangeNothing() {
        var foreign = EtcdWatchEvent.put("obs/k/raw", ClusterEnvelope(value: 1, author: alice), revision: 3)
        foreign.keyValue.value = Array("not json".utf8)
        let changes = ClusterEventMapper.changes(
            from: [
                EtcdWatchEvent.put("obs/r/abc", ClusterEnvelope(value: 1, author: alice), revision: 2), foreign,
                EtcdWatchEvent.delete("obs/d/sky", revision: 4),
            ], layout: layout)
        #expect(changes.isEmpty)
    }

    @Test func theEpochIsTheSameForOneClusterAndPrefixAndDiffersOtherwise() {
        let epoch = ClusterEpoch.name(clusterID: 0x1234, prefix: "obs/")
        #expect(epoch.count == 16)
        #expect(epoch == ClusterEpoch.name(clusterID: 0x1234, prefix: "obs/"))
        #expect(epoch != ClusterEpoch.name(clusterID: 0x1235, prefix: "obs/"))
        #expect(epoch != ClusterEpoch.name(clusterID: 0x1234, prefix: "obs2/"))
    }
}
