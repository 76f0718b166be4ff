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
/// With storage, every change is appended to the log before it is applied and
/// announced, so what observers see is already in the log; a change the log
/// refuses is not made and its writer gets `internal`.
///
/// ## Locking
/// One `Locked` box guards the data and the feeds. A change is stored, applied and
/// sent while the lock is held, so the log and the events are in revision order,
/// and registering an observation and taking its snapshot happen in one step: no
/// change falls between snapshot and events. Handlers therefore run under this lock
/// and must only queue bytes (they take their connection's output lock, never this
/// one). Storage's own lock is taken after this one, never before.
public final class SharedStore: Sendable, SnapshotSource {
    private struct KeyFeed {
        let messenger = Messenger<StoreChange>()
        var observerCount = 0
    }

    private struct Guarded {
        var data: StoreState
        var keyFeeds: [StoreKey: KeyFeed] = [:]
    }

    private let guarded: Locked<Guarded>
    private let everyChange = Messenger<StoreChange>()
    /// Where changes are stored; `nil` keeps the store in memory only.
    public let storage: Storage?
    /// The name of this store's history (PROTOCOL.md's epoch): kept with storage,
    /// new at every start without.
    public let epoch: String

    /// Creates an empty in-memory store that holds at most `maxKeys` keys, with a new epoch.
    public init(maxKeys: Int) {
        guarded = Locked(Guarded(data: StoreState(maxKeys: maxKeys)))
        storage = nil
        epoch = RecoveredState.newEpoch()
    }

    /// Creates a store holding what `recovered` read back, whose changes go to `storage`.
    init(maxKeys: Int, storage: Storage, recovered: RecoveredState) {
        guarded = Locked(
            Guarded(
                data: StoreState(
                    maxKeys: maxKeys, entries: recovered.entries, keys: recovered.keyIndex(),
                    revision: recovered.revision)))
        self.storage = storage
        epoch = recovered.epoch
        storage.attach(self)
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
    /// - Throws: `conflict`, `limit_exceeded`, or `internal` when storage refuses the change (`WireError`).
    @discardableResult
    public func set(_ key: String, to value: JSONValue, ifVersion: Int64? = nil, by author: SessionIdentity)
        throws(WireError) -> (version: Int64, changed: Bool)
    {
        try guarded.withLock { guarded throws(WireError) in
            let outcome = try guarded.data.set(key, to: value, ifVersion: ifVersion, by: author, persist: persist)
            if let change = outcome.change {
                announce(change, from: author, keyFeeds: guarded.keyFeeds)
            }
            return (outcome.version, outcome.change != nil)
        }
    }

    /// Deletes `key` as `author` and notifies observers.
    ///
    /// - Returns: the revision of the delete.
    /// - Throws: `not_found`, `conflict`, or `internal` when storage refuses the change (`WireError`).
    @discardableResult
    public func delete(_ key: String, ifVersion: Int64? = nil, by author: SessionIdentity) throws(WireError) -> Int64 {
        try guarded.withLock { guarded throws(WireError) in
            let change = try guarded.data.delete(key, ifVersion: ifVersion, by: author, persist: persist)
            announce(change, from: author, keyFeeds: guarded.keyFeeds)
            return change.version
        }
    }

    /// Appends a change to the log before it is applied.
    private func persist(_ change: StoreChange) throws(WireError) {
        guard let storage, let record = change.storageRecord else { return }
        do {
            try storage.append(record)
        } catch {
            throw WireError(code: .internalError, message: "storage: \(error.message); the change was not made")
        }
    }

    /// The keys starting with `prefix`, sorted by their bytes, with their versions.
    public func list(prefix: String) -> [KeyVersion] {
        list(prefix: prefix, after: nil, limit: .max).keys
    }

    /// One page of `list`: the keys under `prefix` that come after `after` and
    /// that `isIncluded` lets through, at most `limit` of them, and whether more follow.
    ///
    /// Walks a copy of the keys taken under the lock, after releasing it: writers
    /// do not wait however many keys the page skips or holds.
    public func list(
        prefix: String, after: String?, limit: Int, where isIncluded: (String) -> Bool = { _ in true }
    ) -> (keys: [KeyVersion], more: Bool) {
        guarded.withLock { $0.data.view }.page(prefix: prefix, after: after, limit: limit, where: isIncluded)
    }

    /// The current entries of a key or prefix.
    public func snapshot(_ target: Target) -> [ValueEntry] {
        switch target {
        case .key(let key): get(key).map { [$0] } ?? []
        case .prefix(let prefix): guarded.withLock { $0.data.view }.entries(withPrefix: prefix)
        }
    }

    /// Takes the snapshot of `target` and, if `subscribe` is true, starts `observer`
    /// receiving its later changes through `receive`, in one step; returns the
    /// snapshot with the revision it was taken at.
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
    ) -> (values: [ValueEntry], revision: Int64) {
        // Registered and captured in one step under the lock (no change falls between
        // them); a prefix's snapshot is read from a copy after the lock is released.
        let (captured, revision) = guarded.withLock { guarded in
            if subscribe {
                switch target {
                case .key(let key):
                    let feedKey = StoreKey(key)
                    var feed = guarded.keyFeeds[feedKey] ?? KeyFeed()
                    feed.observerCount += 1
                    observer.observe(feed.messenger, receive: receive)
                    guarded.keyFeeds[feedKey] = feed
                case .prefix:
                    observer.observe(everyChange, receive: receive)
                }
            }
            let captured: Captured = switch target {
            case .key(let key): .entry(guarded.data.entry(key))
            case .prefix(let prefix): .view(guarded.data.view, prefix: prefix)
            }
            return (captured, guarded.data.revision)
        }
        switch captured {
        case .entry(let entry): return (entry.map { [$0] } ?? [], revision)
        case .view(let view, let prefix): return (view.entries(withPrefix: prefix), revision)
        }
    }

    /// What `observe` takes under the lock: a key's entry, or a copy to read a prefix from.
    private enum Captured {
        case entry(ValueEntry?)
        case view(StoreView, prefix: String)
    }

    /// Stops `observer` receiving the changes of `key`.
    public func stopObserving(key: String, by observer: some Observer) {
        guarded.withLock { guarded in
            let feedKey = StoreKey(key)
            guard var feed = guarded.keyFeeds[feedKey] else { return }
            observer.stopObserving(feed.messenger)
            feed.observerCount -= 1
            guarded.keyFeeds[feedKey] = feed.observerCount > 0 ? feed : nil
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

    func withFrozenState<Result>(
        _ body: (StoreView, Int64) throws(StorageError) -> Result
    ) throws(StorageError) -> Result {
        try guarded.withLock { guarded throws(StorageError) in try body(guarded.data.view, guarded.data.revision) }
    }

    private func announce(_ change: StoreChange, from author: SessionIdentity, keyFeeds: [StoreKey: KeyFeed]) {
        keyFeeds[StoreKey(change.key)]?.messenger.send(change, from: author)
        everyChange.send(change, from: author)
    }

}
