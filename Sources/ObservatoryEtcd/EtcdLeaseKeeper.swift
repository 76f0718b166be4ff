import ObservatoryLocking

/// Keeps a lease alive on a background thread, renewing it every third of its
/// time to live, and reports through a callback when it is lost.
///
/// The lease is lost when etcd says it no longer exists (it expired or was
/// revoked), or when no renewal got through for its whole time to live (etcd
/// then lets it expire, or will soon). After a loss the keeper stops by itself.
///
/// ```swift
/// let lease = try client.grantLease(ttl: 10)
/// let keeper = EtcdLeaseKeeper(client: client, lease: lease) { error in
///     // The session's keys are gone (or about to be): step down.
/// }
/// …
/// keeper.stop()
/// try client.revokeLease(lease.id)
/// ```
///
/// Thread safety: `stop()` may be called from any thread, also from the loss
/// callback. The callback runs on the keeper's thread, with no lock held.
/// The renewal count is in a `Locked` box (a pthread mutex ThreadSanitizer understands), held only to read or add to it.
public final class EtcdLeaseKeeper: Sendable {
    /// The lease kept alive.
    public let lease: EtcdLease
    private let thread = Locked<EtcdBackgroundThread?>(nil)
    private let renewals = Locked(0)

    /// Starts keeping `lease` alive through `client`.
    ///
    /// - Parameters:
    ///   - interval: the time between renewals; by default a third of the lease's
    ///     time to live, so two renewals can fail before it expires.
    ///   - retryInterval: the time between attempts after a failed renewal.
    ///   - onLoss: called once, on the keeper's thread, when the lease is lost:
    ///     with `leaseNotFound`, or `unavailable` when no renewal got through for
    ///     the whole time to live. Not called after `stop()` returned.
    public init(
        client: EtcdClient, lease: EtcdLease, interval: Duration? = nil, retryInterval: Duration = .milliseconds(200),
        onLoss: @escaping @Sendable (EtcdError) -> Void
    ) {
        self.lease = lease
        let timeToLive = Duration.seconds(max(lease.ttl, 1))
        let renewalInterval = interval ?? timeToLive / 3
        // Weakly, so that a keeper dropped without `stop()` still stops (in `deinit`).
        let countRenewal: @Sendable () -> Void = { [weak self] in self?.renewals.withLock { $0 += 1 } }
        let background = EtcdBackgroundThread(name: "etcd lease \(lease.id)") { thread in
            Self.run(
                client: client, leaseID: lease.id, timeToLive: timeToLive, interval: renewalInterval,
                retryInterval: retryInterval, thread: thread, countRenewal: countRenewal, onLoss: onLoss)
        }
        thread.withLock { $0 = background }
    }

    deinit {
        stop()
    }

    /// How many renewals got through so far: for monitoring, and for tests
    /// that wait for the keeper to have worked.
    public var renewalCount: Int {
        renewals.withLock { $0 }
    }

    /// Stops renewing, promptly (a renewal in flight is waited for, at most the
    /// client's request timeout). The lease then expires after its time to
    /// live unless revoked: revoke it to end a session at once.
    public func stop() {
        let background = thread.withLock { $0 }
        background?.stop()
    }

    /// The renewal loop, on the keeper's thread.
    private static func run(
        client: EtcdClient, leaseID: Int64, timeToLive: Duration, interval: Duration, retryInterval: Duration,
        thread: EtcdBackgroundThread, countRenewal: () -> Void, onLoss: @Sendable (EtcdError) -> Void
    ) {
        // The lease was just granted or renewed: it lives until at least then.
        var expiry = ContinuousClock.now + timeToLive
        var lastFailure: EtcdError?
        var wait = interval
        while thread.pause(wait) {
            let sent = ContinuousClock.now
            do {
                // No longer than the lease has left: past that, it is lost anyway.
                let left = max(sent.duration(to: expiry), .milliseconds(100))
                let renewed = try client.keepAliveOnce(leaseID, timeout: min(left, client.configuration.requestTimeout))
                expiry = sent + .seconds(renewed.ttl)
                countRenewal()
                lastFailure = nil
                wait = interval
            } catch  where error.code == .leaseNotFound {
                report(error, thread: thread, onLoss: onLoss)
                return
            } catch {
                lastFailure = error
                wait = retryInterval
            }
            if ContinuousClock.now >= expiry {
                let detail = lastFailure.map { ": \($0.message)" } ?? ""
                let error = EtcdError.unavailable(
                    "lease \(leaseID) was not renewed within its time to live of \(timeToLive)\(detail)")
                report(error, thread: thread, onLoss: onLoss)
                return
            }
        }
    }

    /// Calls `onLoss` unless the keeper is being stopped.
    private static func report(
        _ error: EtcdError, thread: EtcdBackgroundThread, onLoss: @Sendable (EtcdError) -> Void
    ) {
        guard !thread.isStopping else { return }
        onLoss(error)
    }
}
