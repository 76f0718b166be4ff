import ObservatoryLocking

/// Keeps leases alive, any number of them, on one background thread: a node
/// runs one keeper for all its leases, whatever its number of sessions.
///
/// Which lease is renewed when, how failures are retried and when a lease
/// counts as lost are `EtcdLeaseKeeperMachine`'s rules; the keeper carries out
/// its actions. A lease is lost when etcd says it no longer exists (it expired
/// or was revoked), or when no renewal got through for its whole time to live
/// (etcd then lets it expire, or will soon); its owner is told through the
/// callback given with it, and the keeper stops keeping it.
///
/// ```swift
/// let keeper = EtcdLeaseKeeper(client: client)
/// let lease = try client.grantLease(ttl: 10)
/// keeper.keep(lease) { error in
///     // The keys attached to the lease are gone (or about to be).
/// }
/// …
/// keeper.release(lease.id)
/// try client.revokeLease(lease.id)
/// ```
///
/// Renewals go one at a time, so a keeper suits a few leases (a server's own,
/// say, to which many keys are attached), not thousands: each renewal is one
/// request, and one that waits for an unreachable member delays the others.
///
/// Thread safety: the machine, the callbacks and the renewal count are in a
/// `Locked` box (a pthread mutex ThreadSanitizer understands), held only to
/// ask the machine or tell it an outcome, never across a request to etcd or a
/// callback. `keep`, `release` and `stop()` may be called from any thread, also
/// from a loss callback, which runs on the keeper's thread with no lock held.
public final class EtcdLeaseKeeper: Sendable {
    private struct State {
        var machine: EtcdLeaseKeeperMachine
        var owners: [Int64: @Sendable (EtcdError) -> Void] = [:]
        var renewals = 0
    }

    private let state: Locked<State>
    private let thread: EtcdBackgroundThread

    /// Starts a keeper renewing through `client`, with no lease yet.
    ///
    /// - Parameters:
    ///   - interval: the time between renewals; by default a third of each
    ///     lease's time to live, so two renewals can fail before it expires.
    ///   - retryInterval: the time between attempts after a failed renewal.
    public init(client: EtcdClient, interval: Duration? = nil, retryInterval: Duration = .milliseconds(200)) {
        let machine = EtcdLeaseKeeperMachine(
            interval: interval, retryInterval: retryInterval, requestTimeout: client.configuration.requestTimeout)
        let state = Locked(State(machine: machine))
        self.state = state
        thread = EtcdBackgroundThread(name: "etcd lease keeper") { thread in
            Self.run(client: client, state: state, thread: thread)
        }
    }

    /// Starts a keeper of one lease, `lease`: `init(client:interval:retryInterval:)`, then `keep(_:onLoss:)`.
    public convenience init(
        client: EtcdClient, lease: EtcdLease, interval: Duration? = nil, retryInterval: Duration = .milliseconds(200),
        onLoss: @escaping @Sendable (EtcdError) -> Void
    ) {
        self.init(client: client, interval: interval, retryInterval: retryInterval)
        keep(lease, onLoss: onLoss)
    }

    deinit {
        stop()
    }

    /// Keeps `lease` (just granted or renewed) alive until it is released or lost.
    ///
    /// - Parameter onLoss: called once, on the keeper's thread, when the lease
    ///   is lost: with `leaseNotFound`, or `unavailable` when no renewal got
    ///   through for the whole time to live. Not called after `stop()` returned,
    ///   nor after `release` returned unless the loss was being reported already.
    public func keep(_ lease: EtcdLease, onLoss: @escaping @Sendable (EtcdError) -> Void) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.machine.keep(lease, at: now)
            state.owners[lease.id] = onLoss
        }
        thread.endPause()
    }

    /// Stops keeping lease `id`: it expires after its time to live unless revoked.
    public func release(_ id: Int64) {
        state.withLock { state in
            state.machine.release(id)
            state.owners[id] = nil
        }
    }

    /// The ids of the leases kept alive now.
    public var leaseIDs: Set<Int64> {
        state.withLock { $0.machine.leaseIDs }
    }

    /// How many renewals got through so far, of every lease: for monitoring,
    /// and for tests that wait for the keeper to have worked.
    public var renewalCount: Int {
        state.withLock { $0.renewals }
    }

    /// Stops renewing, promptly (a renewal in flight is waited for, at most the
    /// client's request timeout). The leases then expire after their time to
    /// live unless revoked: revoke them to end their keys at once.
    public func stop() {
        thread.stop()
    }

    /// The keeper's loop, on its thread: asks the machine, carries out its action.
    private static func run(client: EtcdClient, state: Locked<State>, thread: EtcdBackgroundThread) {
        while !thread.isStopping {
            let now = ContinuousClock.now
            switch state.withLock({ $0.machine.next(at: now) }) {
            case .wait(let until):
                // Woken early by `keep` and `stop()`; with no lease, a new one always wakes it.
                thread.pause(until.map { now.duration(to: $0) } ?? .seconds(3_600))
            case .renew(let id, let timeout):
                do throws(EtcdError) {
                    let renewed = try client.keepAliveOnce(id, timeout: timeout)
                    state.withLock { state in
                        state.machine.renewed(id, ttl: renewed.ttl, sentAt: now)
                        state.renewals += 1
                    }
                } catch {
                    let failedAt = ContinuousClock.now
                    state.withLock { $0.machine.failed(id, error, at: failedAt) }
                }
            case .lose(let id, let error):
                let owner = state.withLock { $0.owners.removeValue(forKey: id) }
                guard !thread.isStopping else { return }
                owner?(error)
            }
        }
    }
}
