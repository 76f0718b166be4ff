/// Which etcd lease an expiring key goes on, as a plain value (docs/cluster.md,
/// "Expiring keys"): keys whose deadlines fall within about a second share one
/// lease, so a node holds about one lease per second in which keys expire, not
/// one per key.
///
/// A key may go on a lease that ends at or after its deadline and at most
/// `sharingWindow` after it. A new lease is granted for the most whole seconds
/// that end within that window (etcd counts leases in whole seconds), so that
/// it ends about a second after the deadline it was granted for: the keys of
/// the following second, whose deadlines come later, share it. A key is then
/// deleted no earlier than its time and, with etcd's own delay in ending
/// leases (it looks every half second), within the 2 s the protocol allows a cluster.
///
/// Leases are remembered by the second they end in; one that has ended is forgotten.
struct ExpiryLeaseBuckets {
    /// A granted lease and when it ends (milliseconds since 1970).
    private struct Bucket {
        let lease: Int64
        let end: Int64
    }

    /// How late after a key's deadline its lease may end, in milliseconds.
    static let sharingWindow: Int64 = 1_200

    private var bySecond: [Int64: Bucket] = [:]
    /// The count of leases remembered at which those that ended are next looked for.
    private var pruneAt = 64

    /// The number of leases remembered.
    var count: Int { bySecond.count }

    /// The time to live, in whole seconds (at least 1), of a lease granted at
    /// `now` for a key expiring at `deadline` (both milliseconds since 1970):
    /// the most that end within `sharingWindow` after the deadline, and never
    /// fewer than reach it.
    static func ttlSeconds(until deadline: Int64, now: Int64) -> Int64 {
        let reaching = (deadline - now + 999).floorDivided(by: 1_000)
        let withinWindow = (deadline + sharingWindow - now).floorDivided(by: 1_000)
        return max(1, reaching, withinWindow)
    }

    /// A remembered lease that ends at or after `deadline` and at most
    /// `sharingWindow` after it, if any.
    func lease(for deadline: Int64) -> Int64? {
        let first = deadline.floorDivided(by: 1_000)
        let last = (deadline + Self.sharingWindow).floorDivided(by: 1_000)
        for second in first...last {
            if let bucket = bySecond[second], bucket.end >= deadline, bucket.end <= deadline + Self.sharingWindow {
                return bucket.lease
            }
        }
        return nil
    }

    /// Remembers `lease`, granted at `grantedAt` for `ttlSeconds` seconds, in
    /// place of another ending in the same second; forgets those ended by
    /// `grantedAt` whenever the count has doubled since it last did (so that a
    /// grant costs a constant time on average).
    mutating func remember(_ lease: Int64, grantedAt: Int64, ttlSeconds: Int64) {
        let end = grantedAt + ttlSeconds * 1_000
        if bySecond.count >= pruneAt {
            bySecond = bySecond.filter { $0.value.end > grantedAt }
            pruneAt = max(64, 2 * bySecond.count)
        }
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
