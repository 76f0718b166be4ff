import ObservatoryEtcd

@testable import ObservatoryServer

extension EtcdWatchEvent {
    /// A watch event writing `envelope` to the etcd key `key` at `revision`.
    static func put(_ key: String, _ envelope: ClusterEnvelope, revision: Int64) -> EtcdWatchEvent {
        EtcdWatchEvent(
            kind: .put,
            keyValue: EtcdKeyValue(
                key: Array(key.utf8), value: envelope.encoded(), createRevision: revision, modRevision: revision,
                version: 1, lease: 0))
    }

    /// A watch event deleting the etcd key `key` at `revision`.
    static func delete(_ key: String, revision: Int64) -> EtcdWatchEvent {
        EtcdWatchEvent(
            kind: .delete,
            keyValue: EtcdKeyValue(
                key: Array(key.utf8), value: [], createRevision: 0, modRevision: revision, version: 0, lease: 0))
    }
}
