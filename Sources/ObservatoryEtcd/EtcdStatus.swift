/// What one member says about itself and the cluster (`/v3/maintenance/status`).
public struct EtcdStatus: Hashable, Sendable {
    /// The answer's header: the cluster id, the member's id, the current revision.
    public var header: EtcdResponseHeader
    /// The member's etcd version, such as `3.4.23`.
    public var version: String
    /// The member id of the leader, 0 when there is none.
    public var leader: UInt64
    /// The Raft term.
    public var raftTerm: UInt64
    /// The Raft index the member has.
    public var raftIndex: UInt64
    /// The size of the member's database file, in bytes.
    public var databaseSize: Int64

    /// Creates a status value.
    public init(
        header: EtcdResponseHeader, version: String, leader: UInt64, raftTerm: UInt64 = 0, raftIndex: UInt64 = 0,
        databaseSize: Int64 = 0
    ) {
        self.header = header
        self.version = version
        self.leader = leader
        self.raftTerm = raftTerm
        self.raftIndex = raftIndex
        self.databaseSize = databaseSize
    }

    /// The cluster's identifier, the same on every member.
    public var clusterID: UInt64 { header.clusterID }

    /// The store's current revision.
    public var revision: Int64 { header.revision }

    /// Reads a `StatusResponse` object.
    init(json: EtcdJSON.Object) throws(EtcdError) {
        self.init(
            header: try EtcdResponseHeader(of: json), version: try EtcdJSON.string(json, "version"),
            leader: try EtcdJSON.identifier(json, "leader"), raftTerm: try EtcdJSON.identifier(json, "raftTerm"),
            raftIndex: try EtcdJSON.identifier(json, "raftIndex"), databaseSize: try EtcdJSON.integer(json, "dbSize"))
    }
}
