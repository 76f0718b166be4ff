/// The lease keeper's decisions, for every lease it keeps: which lease is due
/// for a renewal, how long a renewal may take, when to retry one that failed,
/// and when a lease counts as lost. It takes the time and the outcomes of
/// renewals as inputs and returns actions; `EtcdLeaseKeeper` carries them out
/// on its one thread, so the rules are tested without etcd or a clock.
///
/// A lease is renewed every `interval` (by default a third of its time to live,
/// so two renewals can fail before it expires), and after a failure every
/// `retryInterval`. It is lost when etcd says it no longer exists, or when no
/// renewal got through for its whole time to live; a lost lease is no longer
/// kept, and the action that reports it is returned once.
struct EtcdLeaseKeeperMachine {
    /// What the keeper does next.
    enum Action: Equatable {
        /// Renew lease `id`, waiting at most `timeout` for the answer (no
        /// longer than the lease has left), then report with `renewed` or `failed`.
        case renew(id: Int64, timeout: Duration)
        /// Lease `id` is lost, for this reason: tell its owner. It is no longer kept.
        case lose(id: Int64, EtcdError)
        /// Nothing is due: wait until then (`nil`: until a lease is kept).
        case wait(until: ContinuousClock.Instant?)
    }

    /// One kept lease: its time to live, and when it expires and is next due.
    private struct Kept {
        let timeToLive: Duration
        let interval: Duration
        var expiry: ContinuousClock.Instant
        var due: ContinuousClock.Instant
        var lastFailure: EtcdError?
    }

    private var kept: [Int64: Kept] = [:]
    private let interval: Duration?
    private let retryInterval: Duration
    private let requestTimeout: Duration

    /// A machine renewing every `interval` (`nil`: a third of each lease's time
    /// to live), retrying every `retryInterval`, waiting at most `requestTimeout` for an answer.
    init(interval: Duration?, retryInterval: Duration, requestTimeout: Duration) {
        self.interval = interval
        self.retryInterval = retryInterval
        self.requestTimeout = requestTimeout
    }

    /// The ids of the leases kept.
    var leaseIDs: Set<Int64> {
        Set(kept.keys)
    }

    /// Starts keeping `lease`, just granted or renewed at `now`.
    mutating func keep(_ lease: EtcdLease, at now: ContinuousClock.Instant) {
        let timeToLive = Duration.seconds(max(lease.ttl, 1))
        let interval = interval ?? timeToLive / 3
        kept[lease.id] = Kept(timeToLive: timeToLive, interval: interval, expiry: now + timeToLive, due: now + interval)
    }

    /// Stops keeping lease `id` (its owner revokes it, or lets it expire).
    mutating func release(_ id: Int64) {
        kept[id] = nil
    }

    /// The renewal of `id` sent at `sent` got through: etcd granted `ttl` seconds again.
    mutating func renewed(_ id: Int64, ttl: Int64, sentAt sent: ContinuousClock.Instant) {
        guard var lease = kept[id] else { return }
        lease.expiry = sent + .seconds(ttl)
        lease.due = sent + lease.interval
        lease.lastFailure = nil
        kept[id] = lease
    }

    /// The renewal of `id` failed at `now` with `error`: retried soon, unless
    /// the lease is gone (`leaseNotFound`), which `next(at:)` then reports.
    mutating func failed(_ id: Int64, _ error: EtcdError, at now: ContinuousClock.Instant) {
        guard var lease = kept[id] else { return }
        lease.lastFailure = error
        if error.code == .leaseNotFound {
            // Gone for good: due at once, as lost.
            lease.expiry = now
            lease.due = now
        } else {
            lease.due = now + retryInterval
        }
        kept[id] = lease
    }

    /// What to do at `now`: report a lost lease, renew the lease most overdue, or wait.
    mutating func next(at now: ContinuousClock.Instant) -> Action {
        if let lost = kept.filter({ $0.value.expiry <= now }).min(by: { $0.value.expiry < $1.value.expiry }) {
            kept[lost.key] = nil
            if let failure = lost.value.lastFailure, failure.code == .leaseNotFound {
                return .lose(id: lost.key, failure)
            }
            let detail = lost.value.lastFailure.map { ": \($0.message)" } ?? ""
            let message =
                "lease \(lost.key) was not renewed within its time to live of \(lost.value.timeToLive)\(detail)"
            return .lose(id: lost.key, .unavailable(message))
        }
        guard let due = kept.min(by: { $0.value.due < $1.value.due }) else { return .wait(until: nil) }
        guard due.value.due <= now else {
            return .wait(until: kept.values.map { min($0.due, $0.expiry) }.min())
        }
        // No longer than the lease has left: past that, it is lost anyway.
        let left = max(now.duration(to: due.value.expiry), .milliseconds(100))
        return .renew(id: due.key, timeout: min(left, requestTimeout))
    }
}
