import Observatory
import ObservatoryWire

/// The server's shared values: one JSON value per key, the global revision, and
/// the feeds through which connections observe changes, built on the core
/// library's `Messenger`.
///
/// Connections are ordinary `Observer`s. Each observed key has its own messenger,
/// so a change is routed to that key's observers in O(1); a connection observing
/// prefixes observes the messenger of every change and filters it.
///
/// ## Locking
/// One `Locked` box guards the data and the feeds. A change is applied and sent while
/// the lock is held, so events leave in revision order, and registering an
/// observation and taking its snapshot happen in one step: no change falls between
/// snapshot and events. Handlers therefore run under this lock and must only queue
/// bytes (they take their connection's output lock, never this one).
public final class SharedStore: Sendable {
    private struct KeyFeed {
        let messenger = Messenger<StoreChange>()
        var observerCount = 0
    }

    private struct Guarded {
        var data: StoreState
        var keyFeeds: [String: KeyFeed] = [:]
    }

    private let guarded: Locked<Guarded>
    private let everyChange = Messenger<StoreChange>()

    /// Creates an empty store that holds at most `maxKeys` keys.
    public init(maxKeys: Int) {
        guarded = Locked(Guarded(data: StoreState(maxKeys: maxKeys)))
    }

    /// The entry of `key`, if it exists.
    public func get(_ key: String) -> ValueEntry? {
        guarded.withLock { $0.data.entry(key) }
    }

    /// The revision of the last change.
    public var revision: Int64 {
        guarded.withLock { $0.data.revision }
    }

    /// The number of keys.
    public var keyCount: Int {
        guarded.withLock { $0.data.entries.count }
    }

    /// Writes `value` to `key` as `author` and notifies observers if it changed.
    ///
    /// - Returns: the key's version and whether the value changed.
    /// - Throws: `conflict` or `limit_exceeded` (`WireError`).
    @discardableResult
    public func set(_ key: String, to value: JSONValue, ifVersion: Int64? = nil, by author: SessionIdentity)
        throws(WireError) -> (version: Int64, changed: Bool)
    {
        try guarded.withLock { guarded throws(WireError) in
            let outcome = try guarded.data.set(key, to: value, ifVersion: ifVersion, by: author)
            if let change = outcome.change {
                announce(change, from: author, keyFeeds: guarded.keyFeeds)
            }
            return (outcome.version, outcome.change != nil)
        }
    }

    /// Deletes `key` as `author` and notifies observers.
    ///
    /// - Returns: the revision of the delete.
    /// - Throws: `not_found` or `conflict` (`WireError`).
    @discardableResult
    public func delete(_ key: String, ifVersion: Int64? = nil, by author: SessionIdentity) throws(WireError) -> Int64 {
        try guarded.withLock { guarded throws(WireError) in
            let change = try guarded.data.delete(key, ifVersion: ifVersion, by: author)
            announce(change, from: author, keyFeeds: guarded.keyFeeds)
            return change.version
        }
    }

    /// The keys starting with `prefix`, sorted, with their versions.
    public func list(prefix: String) -> [KeyVersion] {
        guarded.withLock { guarded in
            guarded.data.entries(withPrefix: prefix).map { KeyVersion(key: $0.key, version: $0.version) }
        }
    }

    /// The current entries of a key or prefix.
    public func snapshot(_ target: Target) -> [ValueEntry] {
        guarded.withLock { Self.snapshot(target, of: $0.data) }
    }

    /// Takes the snapshot of `target` and, if `subscribe` is true, starts `observer`
    /// receiving its later changes through `receive`, in one step.
    ///
    /// For a key, `receive` gets that key's changes; for a prefix, it gets every
    /// change and is expected to filter (one prefix subscription per observer is
    /// enough for all its prefixes). Pass `subscribe: false` when the observer
    /// already receives the target's changes: it then only gets a fresh snapshot.
    public func observe(
        _ target: Target,
        by observer: some Observer,
        subscribe: Bool,
        receive: @escaping (StoreChange) -> Void
    ) -> [ValueEntry] {
        guarded.withLock { guarded in
            if subscribe {
                switch target {
                case .key(let key):
                    var feed = guarded.keyFeeds[key] ?? KeyFeed()
                    feed.observerCount += 1
                    observer.observe(feed.messenger, receive: receive)
                    guarded.keyFeeds[key] = feed
                case .prefix:
                    observer.observe(everyChange, receive: receive)
                }
            }
            return Self.snapshot(target, of: guarded.data)
        }
    }

    /// Stops `observer` receiving the changes of `key`.
    public func stopObserving(key: String, by observer: some Observer) {
        guarded.withLock { guarded in
            guard var feed = guarded.keyFeeds[key] else { return }
            observer.stopObserving(feed.messenger)
            feed.observerCount -= 1
            guarded.keyFeeds[key] = feed.observerCount > 0 ? feed : nil
        }
    }

    /// Stops `observer` receiving every change (its prefix subscription).
    public func stopObservingPrefixes(by observer: some Observer) {
        observer.stopObserving(everyChange)
    }

    /// The number of keys that currently have a feed (at least one key observer).
    var keyFeedCount: Int {
        guarded.withLock { $0.keyFeeds.count }
    }

    private func announce(_ change: StoreChange, from author: SessionIdentity, keyFeeds: [String: KeyFeed]) {
        keyFeeds[change.key]?.messenger.send(change, from: author)
        everyChange.send(change, from: author)
    }

    private static func snapshot(_ target: Target, of data: StoreState) -> [ValueEntry] {
        switch target {
        case .key(let key): data.entry(key).map { [$0] } ?? []
        case .prefix(let prefix): data.entries(withPrefix: prefix)
        }
    }
}
