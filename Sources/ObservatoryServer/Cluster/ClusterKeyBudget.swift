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
/// Exact for the writes of one node and for writes on different nodes one after
/// another. Approximate only for creates in flight at the same moment on
/// different nodes: each may count the free keys before the others' commit, so
/// the cluster may pass the limit by at most that many keys.
///
/// Thread safety: the keys in flight are in a `Locked` box, held only to count or
/// change them (counting reads the cache, whose lock is taken after this one);
/// never while etcd is asked.
final class ClusterKeyBudget: Sendable {
    /// The most keys the cluster holds (`limits.maxKeys`).
    let maxKeys: Int
    private let creating = Locked<Set<StoreKey>>([])

    /// A budget of `maxKeys` keys.
    init(maxKeys: Int) {
        self.maxKeys = maxKeys
    }

    /// Reserves room for creating `key`, which `cache` does not hold, until `release`.
    ///
    /// - Parameter committedKeys: asks etcd how many keys the prefix holds, near the limit.
    /// - Returns: `false` when the keys and the node's creates in flight already reach `maxKeys`.
    /// - Throws: what `committedKeys` throws.
    func reserve<Failure: Error>(
        _ key: String, in cache: SharedStore, committedKeys: () throws(Failure) -> Int
    ) throws(Failure) -> Bool {
        let hasPlentyOfRoom = creating.withLock { creating in
            guard cache.keyCount + Self.pending(creating, cache) + 1 < maxKeys else { return false }
            creating.insert(StoreKey(key))
            return true
        }
        if hasPlentyOfRoom { return true }
        let committed = try committedKeys()
        return creating.withLock { creating in
            // A create in flight that etcd committed may be counted twice here: only ever a refusal too many.
            guard committed + Self.pending(creating, cache) < maxKeys else { return false }
            creating.insert(StoreKey(key))
            return true
        }
    }

    /// The error of a create refused for want of room.
    var exceeded: WireError {
        WireError(
            code: .limitExceeded,
            message: "the cluster holds its maximum of \(maxKeys) keys (limits.maxKeys); "
                + "delete keys or raise limits.maxKeys on every node")
    }

    /// Ends the reservation of `key`: its create was applied, refused or not sent.
    func release(_ key: String) {
        _ = creating.withLock { $0.remove(StoreKey(key)) }
    }

    /// The creates in flight that `cache` does not hold yet (one it applied is counted there).
    private static func pending(_ creating: Set<StoreKey>, _ cache: SharedStore) -> Int {
        creating.count { cache.get($0.text) == nil }
    }
}
