import Dispatch
import Observatory
import ObservatoryWire

/// `limits.maxKeys` in cluster mode: whether this node may create one more key.
///
/// etcd can compare a key's revisions or value in a transaction, but not count
/// the keys under a prefix, and a counter key kept by every create and delete
/// would make all of them in the cluster race for one compare, and would drift,
/// since etcd deletes session-bound keys on its own when their lease expires. So:
/// - far from the limit, the node decides from its cache (every change its watch
///   applied) plus the creates it has in flight itself, at no cost;
/// - for the last free keys, and to refuse, it asks etcd how many keys the prefix
///   holds now (one range read), so a node whose watch lags another node's
///   creates or deletes decides as that node would.
///
/// Exact for the writes of one node, however many run at once: each create in
/// flight is counted until etcd's count includes it (a reservation remembers the
/// revision its create committed at, and one released while etcd is being asked
/// is kept until that decision ends, in case the count was taken before it
/// committed; a count asked later includes it), and the decisions near the limit
/// take turns.
/// Approximate only for creates in flight at the same moment on different nodes:
/// each may count the free keys before the others' commit, so the cluster may
/// pass the limit by at most that many keys.
///
/// Thread safety: the reservations are in a `Locked` box, held only to count or
/// change them (counting reads the cache, whose lock is taken after this one);
/// never while etcd is asked. Decisions near the limit run one at a time on a
/// serial queue (the writer waits for it, or is called back from it).
final class ClusterKeyBudget: Sendable {
    /// A create this node has in flight, or made and not yet in a count of etcd's.
    private struct Reservation {
        /// The revision its create committed at, once etcd answered.
        var committedAt: Int64?
        /// Whether its write was answered (or refused): only a count that includes
        /// it is then still waited for.
        var isReleased = false
    }

    /// The most keys the cluster holds (`limits.maxKeys`).
    let maxKeys: Int
    private struct State {
        var reservations: [StoreKey: Reservation] = [:]
        /// Whether a decision near the limit is asking etcd now.
        var isAskingEtcd = false
    }

    private let state = Locked(State())
    private let nearLimitTurn = DispatchQueue(label: "observatory.cluster.key-budget")

    /// A budget of `maxKeys` keys.
    init(maxKeys: Int) {
        self.maxKeys = maxKeys
    }

    /// Reserves room for creating `key`, which `cache` does not hold, until `release`.
    ///
    /// - Parameter committedKeys: asks etcd how many keys the prefix holds, and at
    ///   which revision, near the limit.
    /// - Returns: `false` when the keys and the node's creates in flight already reach `maxKeys`.
    /// - Throws: what `committedKeys` throws.
    func reserve<Failure: Error>(
        _ key: String, in cache: SharedStore, committedKeys: () throws(Failure) -> (count: Int, revision: Int64)
    ) throws(Failure) -> Bool {
        if reserveFarFromLimit(key, in: cache) { return true }
        let decided = nearLimitTurn.sync { () -> Result<Bool, Failure> in
            Result { () throws(Failure) -> Bool in try reserveNearLimit(key, committedKeys: committedKeys) }
        }
        return try decided.get()
    }

    /// Reserves room as `reserve(_:in:committedKeys:)` does, without blocking
    /// the caller: far from the limit `decided` is called at once; near it,
    /// the count is asked on the budget's serial queue (one thread at most,
    /// whatever the number of writers), and `decided` is called there.
    func reserve<Failure: Error>(
        _ key: String, in cache: SharedStore,
        committedKeys: @escaping @Sendable () throws(Failure) -> (count: Int, revision: Int64),
        decided: @escaping @Sendable (Result<Bool, Failure>) -> Void
    ) {
        if reserveFarFromLimit(key, in: cache) { return decided(.success(true)) }
        nearLimitTurn.async { [self] in
            decided(Result { () throws(Failure) -> Bool in try reserveNearLimit(key, committedKeys: committedKeys) })
        }
    }

    /// Reserves room for `key` when the cache and the creates in flight leave
    /// plenty; false when the decision needs etcd's count.
    private func reserveFarFromLimit(_ key: String, in cache: SharedStore) -> Bool {
        state.withLock { state in
            let count = cache.keyCount(missing: state.reservations.keys)
            guard count.held + count.missing + 1 < maxKeys else { return false }
            state.reservations[StoreKey(key)] = Reservation()
            return true
        }
    }

    /// Decides near the limit from etcd's count; in the turn of `nearLimitTurn`.
    private func reserveNearLimit<Failure: Error>(
        _ key: String, committedKeys: () throws(Failure) -> (count: Int, revision: Int64)
    ) throws(Failure) -> Bool {
        state.withLock { $0.isAskingEtcd = true }
        defer {
            // Every count asked from now on includes what committed so far.
            state.withLock { state in
                state.isAskingEtcd = false
                state.reservations = state.reservations.filter { !$0.value.isReleased }
            }
        }
        let committed = try committedKeys()
        return state.withLock { state in
            // Those etcd counted are in `committed`; every other one still takes room.
            let uncounted = state.reservations.values.count { !Self.isCounted($0, committed) }
            guard committed.count + uncounted < maxKeys else { return false }
            state.reservations[StoreKey(key)] = Reservation()
            return true
        }
    }

    private static func isCounted(_ reservation: Reservation, _ committed: (count: Int, revision: Int64)) -> Bool {
        reservation.committedAt.map { $0 <= committed.revision } ?? false
    }

    /// Records that the create of `key` committed at `revision`.
    func committed(_ key: String, at revision: Int64) {
        state.withLock { $0.reservations[StoreKey(key)]?.committedAt = revision }
    }

    /// The error of a create refused for want of room.
    var exceeded: WireError {
        WireError(
            code: .limitExceeded,
            message: "the cluster holds its maximum of \(maxKeys) keys (limits.maxKeys); "
                + "delete keys or raise limits.maxKeys on every node")
    }

    /// Ends the reservation of `key`: its create was applied, refused or not sent.
    /// A committed one is kept, released, while a decision is asking etcd for a
    /// count that may have been taken before it committed.
    func release(_ key: String) {
        state.withLock { state in
            guard state.isAskingEtcd, state.reservations[StoreKey(key)]?.committedAt != nil else {
                state.reservations[StoreKey(key)] = nil
                return
            }
            state.reservations[StoreKey(key)]?.isReleased = true
        }
    }
}
