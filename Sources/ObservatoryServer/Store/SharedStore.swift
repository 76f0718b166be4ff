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
/// With storage, a change is in the log before anyone sees it, and a change the
/// log refuses is not made: its writer gets `internal` and no reader sees it.
/// Writes of sessions served by event loops are batched per loop turn
/// (`SharedStore+Batching.swift` says how both rules hold there); the store's
/// own `set`, `delete` and session ends append to the log before applying.
///
/// ## Locking
/// One `Locked` box guards the data and the feeds. A change is stored, applied and
/// sent while the lock is held, so the log and the events are in revision order,
/// and registering an observation and taking its snapshot happen in one step: no
/// change falls between snapshot and events. Handlers therefore run under this lock
/// and must only queue bytes (they take their connection's output lock, never this
/// one). Storage's own lock is taken after this one, never before, and storage's
/// `write(2)` of a change or a turn's batch runs under both, which is what keeps the
/// log in revision order. The revision gate's waiters that a write wakes do not run
/// under it: every path that writes takes the lock through `withStoreLock`, which
/// runs them once the lock is released.
public final class SharedStore: Sendable, SnapshotSource {
    struct KeyFeed {
        let messenger = Messenger<StoreChange>()
        var observerCount = 0
    }

    struct Guarded {
        var data: StoreState
        var history: ChangeHistory
        var keyFeeds: [StoreKey: KeyFeed] = [:]
        /// Changes applied in memory whose records wait in storage's buffer, oldest first.
        var unwritten: [UnwrittenChange] = []
        /// The revision gate's waiters that storage woke under the lock; `withStoreLock`
        /// runs them once it is released.
        var wakeup = RevisionGate.Wakeup()
    }

    let guarded: Locked<Guarded>
    private let everyChange = Messenger<StoreChange>()
    /// Where changes are stored; `nil` keeps the store in memory only.
    public let storage: Storage?
    /// The revision gate: how far replies to writes and events may go. Storage
    /// advances it, or, in a cluster node's cache, the watch (`replicate`);
    /// otherwise everything passes at once.
    let gate: RevisionGate
    /// The name of this store's history (docs/protocol.md's epoch): kept with storage,
    /// new at every start without.
    public let epoch: String

    /// Creates an empty in-memory store with a new epoch.
    ///
    /// - Parameters:
    ///   - maxKeys: the most keys it holds.
    ///   - maxStoreBytes: the most bytes its entries take (`limits.maxStoreBytes`).
    ///   - historyChanges: how many recent changes it keeps for resuming observers.
    ///   - historyBytes: how many bytes of recent changes it keeps at most.
    ///   - maxRequestIds: how many `requestId`s of the last 10 minutes it remembers at most.
    public init(
        maxKeys: Int, maxStoreBytes: Int = ServerLimits().maxStoreBytes,
        historyChanges: Int = ServerLimits().historyChanges, historyBytes: Int = ServerLimits().historyBytes,
        maxRequestIds: Int = ServerLimits().maxRequestIds
    ) {
        guarded = Locked(
            Guarded(
                data: StoreState(
                    maxKeys: maxKeys, maxBytes: maxStoreBytes, appliedWrites: AppliedWrites(capacity: maxRequestIds)),
                history: ChangeHistory(capacity: historyChanges, byteLimit: historyBytes, after: 0)))
        storage = nil
        gate = RevisionGate(reached: .max)
        epoch = RecoveredState.newEpoch()
    }

    /// Creates a store holding what `recovered` read back, whose changes go to `storage`.
    init(limits: ServerLimits, storage: Storage, recovered: RecoveredState) {
        var history = recovered.history(capacity: limits.historyChanges)
        history.limitBytes(to: limits.historyBytes)
        guarded = Locked(
            Guarded(
                data: StoreState(
                    maxKeys: limits.maxKeys, maxBytes: limits.maxStoreBytes, entries: recovered.entries,
                    keys: recovered.keyIndex(), revision: recovered.revision,
                    appliedWrites: recovered.appliedWrites),
                history: history))
        self.storage = storage
        gate = storage.gate
        epoch = recovered.epoch
        storage.attach(self)
    }

    /// Creates the in-memory cache of a cluster node: `entries` as read from etcd
    /// at `revision`, in the cluster's `epoch`, with no limit of its own on keys
    /// (etcd decides every write).
    init(replicating entries: [RawValueEntry], at revision: Int64, epoch: String, historyChanges: Int) {
        guarded = Locked(
            Guarded(
                data: StoreState.replica(of: entries, at: revision),
                history: ChangeHistory(capacity: historyChanges, after: revision)))
        storage = nil
        // Advanced by the watch (`replicate`): a node answers a write once it applied it.
        gate = RevisionGate(reached: revision)
        self.epoch = epoch
    }

    /// The entry of `key`, if it exists.
    public func get(_ key: String) -> RawValueEntry? {
        withWrittenState { $0.data.entry(key) }
    }

    /// The revision of the last change (written first, like every read, so that
    /// a `ping` after a write reports at least that write's version).
    public var revision: Int64 {
        withWrittenState { $0.data.revision }
    }

    /// The number of keys.
    public var keyCount: Int {
        withWrittenState { $0.data.entries.count }
    }

    /// Writes `value` to `key` as `author` and notifies observers if it changed.
    ///
    /// - Parameters:
    ///   - key: the key to write.
    ///   - value: the new value.
    ///   - ifVersion: set only if the key is at this version (0: only if it does not exist).
    ///   - sessionBound: binds the key to `author`'s session, which deletes it when it ends (`endSession`).
    ///   - requestId: a write applied under this id in the last 10 minutes is not
    ///     applied again; its reply is returned with `duplicate` set.
    ///   - ttl: makes the key expire this many seconds from now (`expireDue` deletes it).
    ///   - author: who makes the change.
    /// - Returns: the `set` reply's fields.
    /// - Throws: `conflict`, `limit_exceeded`, or `internal` when storage refuses the change (`WireError`).
    @discardableResult
    public func set(
        _ key: String, to value: EncodedJSON, ifVersion: Int64? = nil, sessionBound: Bool = false,
        requestId: String? = nil, ttl: Int64? = nil, by author: Author
    ) throws(WireError) -> ReplyPayload {
        let now = Self.wallMilliseconds(requestId, ttl: ttl)
        return try write(from: author) { data throws(WireError) in
            try data.planSet(
                key, to: value, ifVersion: ifVersion, sessionBound: sessionBound, requestId: requestId, ttl: ttl,
                by: author, now: now)
        }
    }

    /// Deletes `key` as `author` and notifies observers.
    ///
    /// - Parameters:
    ///   - key: the key to delete.
    ///   - ifVersion: delete only if the key is at this version.
    ///   - requestId: as for `set`.
    ///   - author: who makes the change.
    /// - Returns: the `delete` reply's fields.
    /// - Throws: `not_found`, `conflict`, or `internal` when storage refuses the change (`WireError`).
    @discardableResult
    public func delete(_ key: String, ifVersion: Int64? = nil, requestId: String? = nil, by author: Author)
        throws(WireError) -> ReplyPayload
    {
        let now = Self.wallMilliseconds(requestId)
        return try write(from: author) { data throws(WireError) in
            try data.planDelete(key, ifVersion: ifVersion, requestId: requestId, by: author, now: now)
        }
    }

    /// Deletes the keys bound to `session` (docs/protocol.md's session-bound keys), each
    /// announced as a delete by its owner with reason `session_ended`.
    ///
    /// - Returns: how many keys were deleted; a storage failure stops early and is
    ///   returned too (the keys left are removed at the next start).
    @discardableResult
    public func endSession(_ session: String) -> (deleted: Int, failure: WireError?) {
        withStoreLock { guarded in
            writeUnwritten(&guarded)
            var deleted = 0
            for planned in guarded.data.planSessionEnd(session) {
                do throws(WireError) {
                    try persist(planned, &guarded)
                } catch {
                    // The keys deleted so far stay deleted; the others stay bound until the next start.
                    return (deleted, error)
                }
                let (change, _) = guarded.data.apply(consume planned)
                if let change {
                    publish(change, from: Author(name: change.author, session: change.session), in: &guarded)
                }
                deleted += 1
            }
            return (deleted, nil)
        }
    }

    /// Ends every session that owns session-bound keys: at start-up, the keys of
    /// sessions that died with the previous process.
    func endSessionsOfEarlierProcess() -> (deleted: Int, failure: WireError?) {
        let sessions = guarded.withLock { $0.data.sessionsWithSessionBoundKeys }
        var deleted = 0
        for session in sessions {
            let outcome = endSession(session)
            deleted += outcome.deleted
            if let failure = outcome.failure { return (deleted, failure) }
        }
        return (deleted, nil)
    }

    /// Plans one write under the lock, persists what it returns, applies it and
    /// announces its change: in that order, so a change storage refuses is not made
    /// and observers only see changes that are in the log. A `batched` change is
    /// applied and buffered instead, and announced once written (`buffer`).
    func write(
        from author: Author, batched: Bool = false, _ plan: (StoreState) throws(WireError) -> PlannedWrite
    ) throws(WireError) -> ReplyPayload {
        try withStoreLock { guarded throws(WireError) in
            let planned = try planOnWrittenState(&guarded, batched: batched, makesChange: { $0.change != nil }, plan)
            if batched, let storage, planned.change != nil {
                return try buffer(planned, by: author, in: storage, &guarded)
            }
            try persist(planned, &guarded)
            let (change, payload) = guarded.data.apply(consume planned)
            if let change {
                publish(change, from: author, in: &guarded)
            }
            return payload
        }
    }

    /// Keeps a change in the history and sends it to the observers of its key and
    /// of every change; encodes its event first, once, if anyone observes it.
    ///
    /// Under the lock, where observations start too, so an observer that registers
    /// right after this check sees the change in its snapshot instead.
    func publish(_ change: StoreChange, from author: Author, in guarded: inout Guarded) {
        let keyFeed = guarded.keyFeeds[StoreKey(change.key)]
        let isPrefixObserved = everyChange.isObserved
        guard keyFeed != nil || isPrefixObserved else {
            guarded.history.append(change)
            return
        }
        let encoded = change.encoded()
        guarded.history.append(encoded)
        keyFeed?.messenger.send(encoded, from: author)
        if isPrefixObserved { everyChange.send(encoded, from: author) }
    }

    /// The wall time in milliseconds, read only for writes with a `requestId` or a `ttl`.
    static func wallMilliseconds(_ requestId: String?, ttl: Int64? = nil) -> Int64 {
        requestId == nil && ttl == nil ? 0 : AppliedWrites.wallMilliseconds()
    }

    /// Appends a planned write's records to the log before it is applied.
    private func persist(_ planned: PlannedWrite, _ guarded: inout Guarded) throws(WireError) {
        guard let storage else { return }
        do throws(StorageError) {
            if planned.needsPersisting {
                guarded.wakeup += try storage.append(planned.records)
            } else if let refusal = storage.refusal {
                // A duplicate's answer may name a change that was taken back.
                throw refusal
            }
        } catch {
            throw Self.notMade(error)
        }
    }

    /// The error of a change storage refused.
    static func notMade(_ error: StorageError) -> WireError {
        WireError(code: .internalError, message: "storage: \(error.message); the change was not made")
    }

    /// One page of `list`: the keys under `prefix` that come after `after` and
    /// that `isIncluded` lets through, at most `limit` of them, and whether more follow.
    ///
    /// Walks a copy of the keys taken under the lock, after releasing it: writers
    /// do not wait however many keys the page skips or holds.
    public func list(
        prefix: String, after: String?, limit: Int, where isIncluded: (String) -> Bool = { _ in true }
    ) -> (keys: [KeyVersion], more: Bool) {
        withWrittenState { $0.data.view }.page(prefix: prefix, after: after, limit: limit, where: isIncluded)
    }

    /// The current entries of a key or prefix.
    public func snapshot(_ target: Target) -> [RawValueEntry] {
        switch target {
        case .key(let key): get(key).map { [$0] } ?? []
        case .prefix(let prefix): withWrittenState { $0.data.view }.entries(withPrefix: prefix)
        }
    }

    /// What an `observe` found: a snapshot, or the changes to replay after a resume point.
    public typealias Observation = ObservationStart

    /// Starts `observer` receiving the later changes of `target` through
    /// `receive` (if `subscribe` says so) and, in the same step, takes its snapshot,
    /// or, with a `resumePoint` the store can serve, the changes after it.
    ///
    /// For a key, `receive` gets that key's changes; for a prefix, it gets every
    /// change and is expected to filter (one prefix subscription per observer is
    /// enough for all its prefixes). `subscribe` runs under the store's lock, so an
    /// observer can add the target to what it filters by in the same step: no
    /// change is lost or sent twice between the snapshot or replay and the events.
    /// It returns `false` when the observer already receives the target's changes.
    ///
    /// The store resumes when the resume point's epoch (if given) is this store's
    /// and its history holds every change after the point's revision.
    public func observe<Failure: Error>(
        _ target: Target,
        from resumePoint: ResumePoint? = nil,
        by observer: some Observer,
        subscribe: () throws(Failure) -> Bool,
        receive: @escaping (StoreChange) -> Void
    ) throws(Failure) -> Observation {
        // Registered and captured in one step under the lock (no change falls between
        // them); a prefix's snapshot is read from a copy after the lock is released.
        let (captured, revision) = try withStoreLock { guarded throws(Failure) in
            writeUnwritten(&guarded)
            if try subscribe() {
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
            let revision = guarded.data.revision
            if let resumePoint, resumePoint.epoch.map({ $0 == epoch }) ?? true,
                let replay = guarded.history.changes(of: target, after: resumePoint.revision)
            {
                return (Captured.replay(replay), revision)
            }
            let captured: Captured =
                switch target {
                case .key(let key): .entry(guarded.data.entry(key))
                case .prefix(let prefix): .view(guarded.data.view, prefix: prefix)
                }
            return (captured, revision)
        }
        switch captured {
        case .entry(let entry): return Observation(values: entry.map { [$0] } ?? [], revision: revision)
        case .view(let view, let prefix):
            return Observation(values: view.entries(withPrefix: prefix), revision: revision)
        case .replay(let changes):
            return Observation(values: [], revision: revision, replay: changes.map { $0.encoded() })
        }
    }

    /// What `observe` takes under the lock: a key's entry, or a copy to read a prefix from.
    private enum Captured {
        case entry(RawValueEntry?)
        case view(StoreView, prefix: String)
        case replay([StoreChange])
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
}
