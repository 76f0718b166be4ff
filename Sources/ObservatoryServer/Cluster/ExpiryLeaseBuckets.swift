/// Which etcd lease an expiring key goes on, as a plain value (docs/cluster.md,
/// "Expiring keys"): keys whose deadlines fall in the same second share one
/// lease, so a node holds about one lease per second in which keys expire, not
/// one per key.
///
/// A lease granted at `now` for `ttlSeconds(until:now:)` seconds ends at or
/// after the deadline it was granted for and less than a second after it
/// (etcd counts leases in whole seconds). A later key may share it when the
/// lease ends at or after that key's deadline and less than a second after:
/// it is then deleted no earlier than its time and, with etcd's own delay in
/// expiring leases, within the 2 s the protocol allows a cluster.
///
/// Leases are remembered by the second they end in; one that has ended is forgotten.
struct ExpiryLeaseBuckets {
    /// A granted lease and when it ends (milliseconds since 1970).
    private struct Bucket {
        let lease: Int64
        let end: Int64
    }

    /// How late after a key's deadline its shared lease may end, in milliseconds.
    static let sharingWindow: Int64 = 1_000

    private var bySecond: [Int64: Bucket] = [:]

    /// The number of leases remembered.
    var count: Int { bySecond.count }

    /// The time to live, in whole seconds (at least 1), of a lease granted at
    /// `now` for a key expiring at `deadline` (both milliseconds since 1970).
    static func ttlSeconds(until deadline: Int64, now: Int64) -> Int64 {
        max(1, (deadline - now + 999) / 1_000)
    }

    /// A remembered lease that ends at or after `deadline` and less than
    /// `sharingWindow` after it, if any.
    func lease(for deadline: Int64) -> Int64? {
        let second = deadline.floorDivided(by: 1_000)
        for candidate in [second, second + 1] {
            if let bucket = bySecond[candidate], bucket.end >= deadline, bucket.end < deadline + Self.sharingWindow {
                return bucket.lease
            }
        }
        return nil
    }

    /// Remembers `lease`, granted at `grantedAt` for `ttlSeconds` seconds, in
    /// place of another ending in the same second; forgets those ended by `grantedAt`.
    mutating func remember(_ lease: Int64, grantedAt: Int64, ttlSeconds: Int64) {
        let end = grantedAt + ttlSeconds * 1_000
        bySecond = bySecond.filter { $0.value.end > grantedAt }
        bySecond[end.floorDivided(by: 1_000)] = Bucket(lease: lease, end: end)
    }
}

extension Int64 {
    /// The quotient rounded toward negative infinity.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
