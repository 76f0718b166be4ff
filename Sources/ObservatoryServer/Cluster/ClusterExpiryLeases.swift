import Observatory
import ObservatoryEtcd
import ObservatoryWire

/// The etcd leases a node puts its expiring keys on, one per second in which
/// keys expire (`ExpiryLeaseBuckets`), granted on first use and never kept
/// alive: etcd deletes their keys when they end, and every node's watch sees
/// the deletes (`ClusterEventMapper`, `StoreState.planReplicated(_:)`).
///
/// Thread safety: the buckets are in a `Locked` box, held only to read or
/// change them, never across the grant (two writers may each grant one for the
/// same second; the later is remembered, both stay valid).
final class ClusterExpiryLeases: Sendable {
    private let buckets = Locked(ExpiryLeaseBuckets())

    /// The lease for a key expiring at `deadline` (milliseconds since 1970):
    /// a remembered one, or one granted now (`now` read just before).
    func lease(for deadline: Int64, _ client: EtcdClient) throws(EtcdError) -> Int64 {
        if let shared = buckets.withLock({ $0.lease(for: deadline) }) { return shared }
        let grantedAt = KeyExpiry.wallMilliseconds()
        let granted = try client.grantLease(ttl: ExpiryLeaseBuckets.ttlSeconds(until: deadline, now: grantedAt))
        buckets.withLock { $0.remember(granted.id, grantedAt: grantedAt, ttlSeconds: granted.ttl) }
        return granted.id
    }
}
