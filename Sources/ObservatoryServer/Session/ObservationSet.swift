import ObservatoryWire

/// The keys and prefixes one connection observes, and which of its two routes
/// delivers a given change, so that overlapping observations never duplicate an event.
///
/// A connection receives changes by two routes: per key (from the key's feed) and
/// for prefixes (from the feed of every change, filtered here). A change of a key
/// observed by key goes through the key route only; otherwise through the prefix
/// route if a prefix matches. Observing the same target twice is a no-op. Keys
/// and prefixes compare by their UTF-8 bytes, as the store's keys do.
struct ObservationSet {
    /// The route a change arrived on.
    enum Route {
        /// The feed of one key.
        case key
        /// The feed of every change.
        case prefix
    }

    private(set) var keys: Set<StoreKey> = []
    private(set) var prefixes: Set<StoreKey> = []
    /// The most distinct targets allowed.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The number of distinct keys and prefixes observed.
    var count: Int { keys.count + prefixes.count }

    /// Adds `target`; returns whether it is new.
    ///
    /// - Throws: `limit_exceeded` when a new target would pass `limit`.
    mutating func add(_ target: Target) throws(WireError) -> Bool {
        guard !contains(target) else { return false }
        guard count < limit else {
            throw WireError(
                code: .limitExceeded,
                message: "this connection already observes \(limit) keys and prefixes; unobserve some first"
            )
        }
        switch target {
        case .key(let key): keys.insert(StoreKey(key))
        case .prefix(let prefix): prefixes.insert(StoreKey(prefix))
        }
        return true
    }

    /// Removes `target`; returns whether it was observed.
    mutating func remove(_ target: Target) -> Bool {
        switch target {
        case .key(let key): keys.remove(StoreKey(key)) != nil
        case .prefix(let prefix): prefixes.remove(StoreKey(prefix)) != nil
        }
    }

    /// Whether `target` is observed.
    func contains(_ target: Target) -> Bool {
        switch target {
        case .key(let key): keys.contains(StoreKey(key))
        case .prefix(let prefix): prefixes.contains(StoreKey(prefix))
        }
    }

    /// Whether a change of `key` that arrived on `route` is to be sent.
    ///
    /// A change that arrives through a key's own feed is always sent: the feed
    /// reaches the connection only while it observes the key, and `unobserve`
    /// leaves the feed under the store's lock, before its reply is queued. A
    /// change that arrives through the prefix feed is sent only if a prefix
    /// covers it and the key is not observed on its own, which would send it twice.
    func accepts(_ key: String, via route: Route) -> Bool {
        switch route {
        case .key:
            return true
        case .prefix:
            let storeKey = StoreKey(key)
            return !keys.contains(storeKey) && prefixes.contains { storeKey.hasBytePrefix($0.text) }
        }
    }
}
