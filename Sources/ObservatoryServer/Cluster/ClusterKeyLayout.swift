import ObservatoryEtcd
import ObservatoryWire

/// Where a cluster keeps what under its etcd prefix: each key's value
/// (`<prefix>k/<key>`), the author of each key's last deletion
/// (`<prefix>d/<key>`), the `requestId`s of recent writes (`<prefix>r/<id>`), and
/// the nodes running (`<prefix>n/<node>`, on the node's lease).
///
/// The deletion marker exists because etcd records no author for a delete: the
/// transaction that deletes a key writes its marker in the same revision, so
/// every node's watch learns who deleted it.
struct ClusterKeyLayout: Sendable, Equatable {
    /// What an etcd key under the prefix is.
    enum Kind: Equatable {
        /// The value of Observatory key `key`.
        case value(key: String)
        /// The marker of the last deletion of Observatory key `key`.
        case deletion(key: String)
        /// Anything else (`requestId`s, foreign keys).
        case other
    }

    /// The etcd prefix every key of this cluster starts with, such as `observatory/`.
    let prefix: String
    private let valuePrefix: [UInt8]
    private let deletionPrefix: [UInt8]
    private let requestPrefix: [UInt8]

    /// The layout under `prefix`.
    init(prefix: String) {
        self.prefix = prefix
        valuePrefix = Array((prefix + "k/").utf8)
        deletionPrefix = Array((prefix + "d/").utf8)
        requestPrefix = Array((prefix + "r/").utf8)
    }

    /// The etcd key holding `key`'s value.
    func valueKey(_ key: String) -> [UInt8] {
        valuePrefix + Array(key.utf8)
    }

    /// The etcd key holding the author of `key`'s last deletion.
    func deletionKey(_ key: String) -> [UInt8] {
        deletionPrefix + Array(key.utf8)
    }

    /// The etcd key remembering the write with `requestId`.
    func requestKey(_ requestId: String) -> [UInt8] {
        requestPrefix + Array(requestId.utf8)
    }

    /// The etcd key naming the running node `nodeTag`: written at its start, so
    /// its watch sees a revision of its own to catch up to.
    func nodeKey(_ nodeTag: String) -> [UInt8] {
        Array((prefix + "n/" + nodeTag).utf8)
    }

    /// Every key of the cluster: what the node's one watch covers.
    var everything: EtcdKeyRange {
        .prefix(Array(prefix.utf8))
    }

    /// The keys holding values: what a node reads at start.
    var values: EtcdKeyRange {
        .prefix(valuePrefix)
    }

    /// Every deletion marker.
    var deletions: EtcdKeyRange {
        .prefix(deletionPrefix)
    }

    /// The keys holding the values of `target`: what a replay reads at its resume point.
    func values(of target: Target) -> EtcdKeyRange {
        switch target {
        case .key(let key): .key(valueKey(key))
        case .prefix(let prefix): .prefix(valueKey(prefix))
        }
    }

    /// What `etcdKey` holds.
    func kind(of etcdKey: [UInt8]) -> Kind {
        if etcdKey.starts(with: valuePrefix) {
            return .value(key: String(decoding: etcdKey[valuePrefix.count...], as: UTF8.self))
        }
        if etcdKey.starts(with: deletionPrefix) {
            return .deletion(key: String(decoding: etcdKey[deletionPrefix.count...], as: UTF8.self))
        }
        return .other
    }
}
