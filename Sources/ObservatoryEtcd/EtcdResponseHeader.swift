/// The header etcd puts on every answer: which cluster and member answered, and
/// the store's revision when it did.
public struct EtcdResponseHeader: Hashable, Sendable {
    /// The cluster's identifier: the same on every member, new when a cluster is
    /// created again, so it tells one cluster's history from another's.
    public var clusterID: UInt64
    /// The identifier of the member that answered.
    public var memberID: UInt64
    /// The store's revision when the request was served (after a write, the write's own).
    public var revision: Int64
    /// The Raft term the member was in.
    public var raftTerm: UInt64

    /// Creates a header.
    public init(clusterID: UInt64 = 0, memberID: UInt64 = 0, revision: Int64 = 0, raftTerm: UInt64 = 0) {
        self.clusterID = clusterID
        self.memberID = memberID
        self.revision = revision
        self.raftTerm = raftTerm
    }

    /// Reads a header object; an absent one reads as all zeros (as inside transactions).
    init(json: EtcdJSON.Object?) throws(EtcdError) {
        guard let json else {
            self.init()
            return
        }
        self.init(
            clusterID: try EtcdJSON.identifier(json, "cluster_id"),
            memberID: try EtcdJSON.identifier(json, "member_id"),
            revision: try EtcdJSON.integer(json, "revision"), raftTerm: try EtcdJSON.identifier(json, "raft_term"))
    }

    /// Reads the `header` field of an answer.
    init(of answer: EtcdJSON.Object) throws(EtcdError) {
        try self.init(json: EtcdJSON.optionalObject(answer, "header"))
    }
}
