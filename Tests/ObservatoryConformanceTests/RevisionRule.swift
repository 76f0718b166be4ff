/// What the suite may expect of revision numbers from the server under test
/// (docs/protocol.md, "Values, keys, versions, authors" and "Cluster mode").
///
/// A single daemon on a new store starts at revision 0 and gives every change
/// the next number. A cluster node takes etcd's revisions: they start wherever
/// etcd is, are shared with every other prefix on the same etcd, and so may skip
/// numbers, though never reuse one or go back. Each check is exact against a
/// single daemon and as strict as the protocol allows against a cluster node, so
/// the single-daemon run loses nothing to the cluster run.
struct RevisionRule {
    /// Whether the server under test is a cluster node.
    let isCluster: Bool

    /// Whether `revision` may be the revision of the change right after
    /// `previous`: exactly `previous + 1` on a single daemon, any higher one on a
    /// cluster node.
    func isNext(_ revision: Int64?, after previous: Int64) -> Bool {
        guard let revision else { return false }
        return isCluster ? revision > previous : revision == previous + 1
    }

    /// Whether `revision`, reported after the test's last change took `last`,
    /// is right: exactly `last` on a single daemon, at least `last` on a cluster
    /// node (changes outside the test's prefix may have followed).
    func isLatest(_ revision: Int64?, _ last: Int64) -> Bool {
        guard let revision else { return false }
        return isCluster ? revision >= last : revision == last
    }

    /// Whether `versions` are successive changes: each one `isNext` after the one before.
    func areSuccessive(_ versions: [Int64]) -> Bool {
        zip(versions, versions.dropFirst()).allSatisfy { isNext($1, after: $0) }
    }

    /// Whether `revision` is what a server reports before the test made any
    /// change: 0 on a new single daemon, anything on a cluster node (etcd's).
    func isStart(_ revision: Int64?) -> Bool {
        guard let revision else { return false }
        return isCluster ? revision >= 0 : revision == 0
    }
}
