import ObservatoryWire

/// The store's data and its rules, as a plain value: entries by key, the global
/// revision, compare-and-set, the key limit, session-bound keys and the writes
/// remembered by `requestId`.
///
/// `SharedStore` keeps one behind a lock and announces the changes it returns.
/// Every mutation goes through `set`, `delete` or `endSession`, which hand their
/// records to `persist` before they apply them: a change that cannot be stored is
/// not made.
struct StoreState {
    /// What a write did: the key's version afterwards, the change if there was one,
    /// and the reply's payload.
    struct WriteOutcome {
        let change: StoreChange?
        let payload: ReplyPayload
    }

    /// Stores a change, and the write that carried a `requestId`, before they are
    /// applied (the storage log), or throws to refuse them. Takes the change
    /// itself, so that a store without storage builds no records.
    typealias Persist = (StoreChange?, AppliedWrite?) throws(WireError) -> Void

    private(set) var entries: EntryTable
    /// The keys in byte order, for `list` and prefix snapshots.
    private(set) var keys: OrderedKeyIndex
    /// The revision of the last change; the next change takes `revision + 1`.
    private(set) var revision: Int64
    /// The session-bound keys of each session, by session id.
    private(set) var ephemeralKeys: [String: Set<StoreKey>] = [:]
    /// The writes with a `requestId` that a retry must not apply again.
    private(set) var appliedWrites: AppliedWrites
    let maxKeys: Int

    init(
        maxKeys: Int, entries: EntryTable = EntryTable(), keys: OrderedKeyIndex = OrderedKeyIndex(),
        revision: Int64 = 0, appliedWrites: AppliedWrites = AppliedWrites(capacity: 1_000_000)
    ) {
        self.maxKeys = maxKeys
        self.entries = entries
        self.keys = keys
        self.revision = revision
        self.appliedWrites = appliedWrites
        // swift-format-ignore: ReplaceForEachWithForLoop
        // (EntryTable is not a Sequence; its forEach walks its slots in place.)
        entries.forEach { entry in
            if entry.ephemeral { ephemeralKeys[entry.session, default: []].insert(StoreKey(entry.key)) }
        }
    }

    /// The entry of `key`, if it exists.
    func entry(_ key: String) -> ValueEntry? {
        entries[key]
    }

    /// Writes `value` to `key`. An equal value with the same binding changes
    /// nothing (no version, no change); making a key session-bound, or lasting
    /// again, or binding it to another session, is a change even when the value is equal.
    ///
    /// - Throws: `conflict` when `ifVersion` does not match (0 means "must not exist"),
    ///   `limit_exceeded` when creating a key would pass `maxKeys`, or what `persist` throws.
    mutating func set(
        _ key: String, to value: JSONValue, ifVersion: Int64?, ephemeral: Bool = false, requestId: String? = nil,
        by author: Author, now: Int64 = 0, persist: Persist
    ) throws(WireError) -> WriteOutcome {
        if let requestId, let applied = appliedWrites.lookup(requestId, now: now) {
            return WriteOutcome(change: nil, payload: applied.duplicatePayload)
        }
        let existing = entries[key]
        try checkVersion(of: key, existing: existing, expected: ifVersion)
        if let existing, existing.value == value, existing.ephemeral == ephemeral,
            !ephemeral || existing.session == author.session
        {
            let reply = AppliedWrite.Reply.set(key: key, version: existing.version, changed: false)
            try remember(requestId, reply, now: now, after: nil, persist: persist)
            return WriteOutcome(change: nil, payload: .set(key: key, version: existing.version, changed: false))
        }
        if existing == nil && entries.count >= maxKeys {
            throw WireError(
                code: .limitExceeded,
                message: "the store holds its maximum of \(maxKeys) keys; delete keys or raise limits.maxKeys")
        }
        let version = revision + 1
        let change = StoreChange.update(
            key: key, old: existing?.value, new: value, version: version, by: author, ephemeral: ephemeral)
        let reply = AppliedWrite.Reply.set(key: key, version: version, changed: true)
        try remember(requestId, reply, now: now, after: change, persist: persist)
        revision = version
        let entry = ValueEntry(
            key: key, value: value, version: version, author: author.name, session: author.session,
            ephemeral: ephemeral)
        replace(existing, with: entry)
        return WriteOutcome(change: change, payload: .set(key: key, version: version, changed: true))
    }

    /// Removes `key`.
    ///
    /// - Throws: `not_found` when it does not exist and there is no
    ///   `ifVersion`; `conflict` when `ifVersion` does not match, and when the
    ///   key does not exist, whatever `ifVersion` says: PROTOCOL.md answers a
    ///   conditional delete of a missing key with `conflict` (version 0),
    ///   since there is nothing to delete even when `ifVersion` is 0. Or what
    ///   `persist` throws.
    mutating func delete(
        _ key: String, ifVersion: Int64?, requestId: String? = nil, by author: Author, now: Int64 = 0,
        persist: Persist
    ) throws(WireError) -> WriteOutcome {
        if let requestId, let applied = appliedWrites.lookup(requestId, now: now) {
            return WriteOutcome(change: nil, payload: applied.duplicatePayload)
        }
        guard let existing = entries[key] else {
            throw ifVersion == nil ? WireError.notFound(key: key) : WireError.conflictDeletingMissing(key: key)
        }
        try checkVersion(of: key, existing: existing, expected: ifVersion)
        let change = StoreChange.delete(key: key, old: existing.value, version: revision + 1, by: author)
        let reply = AppliedWrite.Reply.delete(key: key, version: change.version)
        try remember(requestId, reply, now: now, after: change, persist: persist)
        revision = change.version
        replace(existing, with: nil)
        return WriteOutcome(change: change, payload: .delete(key: key, version: change.version))
    }

    /// Deletes the keys bound to `session`, each as a change by its owner with
    /// reason `session_ended`, and returns those changes in revision order.
    ///
    /// - Throws: what `persist` throws; the keys deleted before it stay deleted
    ///   (their changes are in `deleted`), the others stay bound to the session.
    mutating func endSession(_ session: String, persist: Persist) -> (deleted: [StoreChange], failure: WireError?) {
        guard let bound = ephemeralKeys[session] else { return ([], nil) }
        var deleted: [StoreChange] = []
        for key in bound.sorted(by: { StoreKey.byteOrder($0.text, $1.text) }) {
            guard let existing = entries[key.text] else { continue }
            let owner = Author(name: existing.author, session: existing.session)
            let change = StoreChange.delete(
                key: key.text, old: existing.value, version: revision + 1, by: owner, reason: Event.sessionEnded)
            do {
                try persist(change, nil)
            } catch {
                return (deleted, error)
            }
            revision = change.version
            replace(existing, with: nil)
            deleted.append(change)
        }
        return (deleted, nil)
    }

    /// The sessions that own session-bound keys.
    var sessionsWithEphemeralKeys: [String] {
        Array(ephemeralKeys.keys)
    }

    /// A copy of the keys and entries, cheap to take (see `OrderedKeyIndex` and
    /// `EntryTable`), to read after the store's lock is released.
    var view: StoreView {
        StoreView(keys: keys, entries: entries)
    }

    /// Persists `change`, and the write's `requestId` with it in the same step,
    /// then remembers the id.
    private mutating func remember(
        _ requestId: String?, _ reply: AppliedWrite.Reply, now: Int64, after change: StoreChange?, persist: Persist
    ) throws(WireError) {
        guard let requestId else {
            if let change { try persist(change, nil) }
            return
        }
        let applied = AppliedWrite(requestId: requestId, appliedAt: now, reply: reply)
        try persist(change, applied)
        appliedWrites.remember(applied, now: now)
    }

    /// Puts `new` in place of `old` (either may be missing), keeping the key
    /// index and the session-bound keys in step.
    private mutating func replace(_ old: ValueEntry?, with new: ValueEntry?) {
        guard let key = old?.key ?? new?.key else { return }
        let storeKey = StoreKey(key)
        if let old, old.ephemeral {
            ephemeralKeys[old.session]?.remove(storeKey)
            if ephemeralKeys[old.session]?.isEmpty == true { ephemeralKeys[old.session] = nil }
        }
        if let new, new.ephemeral {
            ephemeralKeys[new.session, default: []].insert(storeKey)
        }
        entries[key] = new
        switch (old, new) {
        case (nil, _?): keys.insert(key)
        case (_?, nil): keys.remove(key)
        default: break
        }
    }

    private func checkVersion(of key: String, existing: ValueEntry?, expected: Int64?) throws(WireError) {
        guard let expected else { return }
        let current = existing?.version ?? 0
        guard current == expected else {
            throw WireError.conflict(key: key, expected: expected, current: current)
        }
    }
}
