import ObservatoryWire

/// The keys and prefixes one connection observes, and which of its two routes
/// delivers a given change, so that overlapping observations never duplicate an event.
///
/// A connection receives changes by two routes: per key (from the key's feed) and
/// for prefixes (from the feed of every change, filtered here). A change of a key
/// observed by key goes through the key route only; otherwise through the prefix
/// route if a prefix matches. Observing the same target twice is a no-op. Keys
/// and prefixes compare by their UTF-8 bytes, as the store's keys do.
///
/// Each target also has a `SlowPolicy`. A change is delivered once, so a key that
/// two observations cover (the key itself and a prefix, or two prefixes) takes the
/// strict reading: if any of them says `close`, its events are never coalesced,
/// since that client must see every intermediate value. Observing a target again
/// with `close` makes it strict; with `coalesce` it does not loosen it (only an
/// `unobserve` does).
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
    /// The keys and prefixes observed with `SlowPolicy.close`: subsets of the two above.
    private(set) var closingKeys: Set<StoreKey> = [] {
        didSet { hasClosingTargets = !closingKeys.isEmpty || !closingPrefixes.isEmpty }
    }
    private(set) var closingPrefixes: Set<StoreKey> = [] {
        didSet { hasClosingTargets = !closingKeys.isEmpty || !closingPrefixes.isEmpty }
    }
    /// Whether any target is observed with `close`; read on every delivery, so
    /// that the common case (none) costs one load, not a call of `mayCoalesce`.
    private(set) var hasClosingTargets = false
    /// Targets observed while changes their snapshot or replay holds were still
    /// on their way from the store's sender: the events of the keys they cover
    /// up to `through` are ignored. Empty but for that moment: an event past one
    /// drops it, since the sender delivers in revision order.
    private var ignored: [(target: StoreKey, isPrefix: Bool, through: Int64)] = []
    /// The most distinct targets allowed.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The number of distinct keys and prefixes observed.
    var count: Int { keys.count + prefixes.count }

    /// Adds `target` with its slow policy; returns whether the target is new.
    /// Its events up to `ignoringThrough` are ignored from now on (the store's
    /// snapshot or replay holds those changes; 0 ignores none).
    ///
    /// - Throws: `limit_exceeded` when a new target would pass `limit`.
    mutating func add(
        _ target: Target, slow: SlowPolicy = .coalesce, ignoringThrough: Int64 = 0
    ) throws(WireError) -> Bool {
        guard !contains(target) else {
            if slow == .close { markClosing(target) }
            ignore(target, through: ignoringThrough)
            return false
        }
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
        if slow == .close { markClosing(target) }
        ignore(target, through: ignoringThrough)
        return true
    }

    private mutating func ignore(_ target: Target, through revision: Int64) {
        guard revision > 0 else { return }
        switch target {
        case .key(let key): ignored.append((StoreKey(key), false, revision))
        case .prefix(let prefix): ignored.append((StoreKey(prefix), true, revision))
        }
    }

    private mutating func markClosing(_ target: Target) {
        switch target {
        case .key(let key): closingKeys.insert(StoreKey(key))
        case .prefix(let prefix): closingPrefixes.insert(StoreKey(prefix))
        }
    }

    /// Removes `target` (and its slow policy); returns whether it was observed.
    mutating func remove(_ target: Target) -> Bool {
        if !ignored.isEmpty {
            let (text, isPrefix) =
                switch target {
                case .key(let key): (key, false)
                case .prefix(let prefix): (prefix, true)
                }
            ignored.removeAll { $0.isPrefix == isPrefix && $0.target.text == text }
        }
        switch target {
        case .key(let key):
            closingKeys.remove(StoreKey(key))
            return keys.remove(StoreKey(key)) != nil
        case .prefix(let prefix):
            closingPrefixes.remove(StoreKey(prefix))
            return prefixes.remove(StoreKey(prefix)) != nil
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

    /// Whether a live event (from the store's sender) that arrived on `route` is
    /// to be sent: `accepts(_:via:)`, unless a target covering its key ignores
    /// it (`add`'s `ignoringThrough`: the snapshot the client got holds it).
    mutating func acceptsEvent(_ change: StoreChange, via route: Route) -> Bool {
        // Small enough to inline into every delivery; the ignoring is rare and kept apart.
        guard ignored.isEmpty else { return acceptsEventIgnoring(change, via: route) }
        return accepts(change.key, via: route)
    }

    private mutating func acceptsEventIgnoring(_ change: StoreChange, via route: Route) -> Bool {
        guard accepts(change.key, via: route) else { return false }
        let key = StoreKey(change.key)
        let version = change.version
        let isIgnored = ignored.contains { floor in
            floor.through >= version && (floor.isPrefix ? key.hasBytePrefix(floor.target.text) : floor.target == key)
        }
        if !isIgnored { ignored.removeAll { $0.through < version } }
        return !isIgnored
    }

    /// Whether the events of `key` may be coalesced: no observation covering it says `close`.
    /// (Deliveries check `hasClosingTargets` first.)
    func mayCoalesce(_ key: String) -> Bool {
        guard hasClosingTargets else { return true }
        let storeKey = StoreKey(key)
        return !closingKeys.contains(storeKey) && !closingPrefixes.contains { storeKey.hasBytePrefix($0.text) }
    }
}
