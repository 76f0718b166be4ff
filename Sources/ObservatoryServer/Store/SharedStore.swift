import Dispatch
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
/// One `Locked` box (`guarded`) guards the data, the history, the feeds, the
/// delivery queue and the write claims. It is held only to decide: plan, buffer
/// and apply a change, keep it in the history and queue its delivery, or
/// register an observation and take its snapshot in one step. Nothing blocks
/// under it: no `write(2)`, no observer's handler and no revision gate waiter
/// runs under it. `withStoreLock`, through which every path that writes or
/// observes takes it, runs handlers and waiters once it is released.
/// Deliveries are queued under it in revision order and sent by one thread at a
/// time (`DeliveryQueue`), so every observer receives the changes in revision
/// order while a slow handler, or one that writes to the store itself, never
/// holds up another thread's write. An observation registered while deliveries
/// are on their way ignores the changes its snapshot already holds (`subscribe`
/// is told up to which revision). Storage's `write(2)` runs after it is released
/// too, as the one write in flight that a write claim (`WriteClaimMachine`)
/// decided under it: the claim keeps the log in revision order, and a thread
/// that must not go on while a write is in flight (a read of unwritten changes,
/// a change while an append is in flight) waits for it on a semaphore, holding
/// no lock (`whenAllowed`). Storage's own lock is taken after this one, never
/// before, and only for what storage decides or buffers.
public final class SharedStore: Sendable, SnapshotSource {
    struct KeyFeed {
        let messenger = Messenger<StoreChange>()
        var observerCount = 0
    }

    struct Guarded {
        var data: StoreState
        var history: ChangeHistory
        var keyFeeds: [StoreKey: KeyFeed] = [:]
        /// The changes applied in memory whose records wait in storage's buffer,
        /// and which write to the log is in flight (`SharedStore+Batching.swift`).
        var claims = WriteClaimMachine<UnwrittenChange, DispatchSemaphore>()
        /// Whether sessions' writes are batched per loop turn (`batchWritesPerTurn()`).
        var batchesWrites = false
        /// The revision gate's waiters that storage woke under the lock; `withStoreLock`
        /// runs them once it is released.
        var wakeup = RevisionGate.Wakeup()
        /// The changes on their way to observers' handlers, and who sends them.
        var deliveries = DeliveryQueue<Delivery>()
        /// Set when a change queued under the current hold of the lock made this
        /// thread the sender: `withStoreLock` sends once the lock is released.
        var becameSender = false
    }

    /// One change on its way to its observers: the feeds chosen under the lock,
    /// sent after it is released (`withStoreLock`).
    struct Delivery {
        let change: StoreChange
        let author: Author
        /// The messenger of the key's observers, if it had any.
        let keyFeed: Messenger<StoreChange>?
        /// Whether the feed of every change (prefix observers) had observers.
        let toEveryChange: Bool
    }

    let guarded: Locked<Guarded>
    let everyChange = Messenger<StoreChange>()
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

    /// The revision of the last change that reached every observer's handler:
    /// a `ping` vouches that its connection has been handed every change up to it
    /// (docs/protocol.md, "Progress"). Written first, like every read, and, when
    /// no other thread is sending deliveries, delivered first too, so that it is
    /// then the last change's revision (a `ping` after a write reports at least
    /// that write's version).
    public var revision: Int64 {
        withWrittenState { guarded in
            guarded.becameSender
                ? guarded.data.revision : guarded.deliveries.deliveredRevision(applied: guarded.data.revision)
        }
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
    /// announced as a delete by its owner with reason `session_ended`. Their
    /// records go to storage in one write before any of them is deleted.
    ///
    /// - Returns: how many keys were deleted; when storage refuses the deletes,
    ///   none is made and the failure is returned too (the keys are removed at
    ///   the next start).
    @discardableResult
    public func endSession(_ session: String) -> (deleted: Int, failure: WireError?) {
        let outcome = deleteOwn({ $0.planSessionEnd(session) }, refused: { _, _ in })
        return (outcome.made, outcome.failure)
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

    /// Plans one write, stores it and applies it, then announces its change, so
    /// that a change storage refuses is not made and observers only see changes
    /// that are in the log: its records are appended before it is applied, or,
    /// `batched` within a loop turn, it is applied and buffered and announced
    /// once written (`SharedStore+Batching.swift`).
    ///
    /// Inlined into its callers, so that `plan` is too: a set's plan is then a
    /// direct call of `planSet`, not a closure's context built and unpacked.
    @inline(__always)
    func write(
        from author: Author, batched: Bool = false, _ plan: (StoreState) throws(WireError) -> PlannedWrite
    ) throws(WireError) -> ReplyPayload {
        try carryOut(
            batched: batched, plan,
            buffer: { planned, guarded in
                // Planned in this hold of the lock: the entry it replaces is the key's entry now.
                let previous = planned.change == nil ? nil : planned.replaced?.entry
                let (change, payload) = guarded.data.apply(planned)
                if let change {
                    guarded.claims.buffered(UnwrittenChange(change: change, author: author, previous: previous))
                }
                return payload
            },
            apply: { planned, guarded in
                let (change, payload) = guarded.data.apply(planned)
                if let change {
                    publish(change, from: author, in: &guarded)
                }
                return payload
            })
    }

    /// Keeps a change in the history and queues its delivery to the observers of
    /// its key and of every change; encodes its event first, once, if anyone
    /// observes it. Under the lock, where observations start too, so an observer
    /// that registers right after this sees the change in its snapshot instead;
    /// the handlers run once the lock is released (`withStoreLock`).
    func publish(_ change: StoreChange, from author: Author, in guarded: inout Guarded) {
        // With no key observed, no key is made and looked up.
        let keyFeed = guarded.keyFeeds.isEmpty ? nil : guarded.keyFeeds[StoreKey(change.key)]
        let isPrefixObserved = everyChange.isObserved
        guard keyFeed != nil || isPrefixObserved else {
            guarded.history.append(change)
            return
        }
        let encoded = change.encoded()
        guarded.history.append(encoded)
        let delivery = Delivery(
            change: encoded, author: author, keyFeed: keyFeed?.messenger, toEveryChange: isPrefixObserved)
        if guarded.deliveries.enqueue(delivery, revision: encoded.version) == .startSending {
            guarded.becameSender = true
        }
    }

    /// The wall time in milliseconds, read only for writes with a `requestId` or a `ttl`.
    static func wallMilliseconds(_ requestId: String?, ttl: Int64? = nil) -> Int64 {
        requestId == nil && ttl == nil ? 0 : AppliedWrites.wallMilliseconds()
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
}
