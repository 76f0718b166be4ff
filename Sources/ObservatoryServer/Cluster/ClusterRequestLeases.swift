import Observatory
import ObservatoryEtcd

/// The leases that records of `requestId`s are written on: one at a time, used
/// for writes during `rotation` after it was granted and living `retention +
/// rotation`, so every record lives at least `retention` (docs/protocol.md's 10
/// minutes) and etcd removes it by itself afterwards.
///
/// Thread safety: the current lease sits in a `Locked` box, held only to read or
/// replace it, never while etcd is asked for a new one (two writers may then both
/// grant one; the later replaces the earlier, which still expires on time).
final class ClusterRequestLeases: Sendable {
    private struct Current {
        let id: Int64
        let grantedAt: ContinuousClock.Instant
    }

    private let current = Locked<Current?>(nil)
    private let retention: Duration
    private let rotation: Duration

    /// Leases that keep each record at least `retention`, a new one every `rotation`.
    init(retention: Duration = .seconds(600), rotation: Duration = .seconds(60)) {
        self.retention = retention
        self.rotation = rotation
    }

    /// The lease to write a record on now, granted through `client` when due.
    func current(_ client: EtcdClient) throws(EtcdError) -> Int64 {
        let now = ContinuousClock.now
        if let lease = current.withLock({ $0 }), now - lease.grantedAt < rotation { return lease.id }
        let seconds = (retention + rotation).components.seconds
        let granted = try client.grantLease(ttl: seconds)
        current.withLock { $0 = Current(id: granted.id, grantedAt: now) }
        return granted.id
    }
}
