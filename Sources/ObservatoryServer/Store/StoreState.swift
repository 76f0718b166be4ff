import ObservatoryWire

/// The store's data and its rules, as a plain value: entries by key, the global
/// revision, compare-and-set, the key and byte limits, session-bound keys,
/// expiring keys (`expiries`) and the writes remembered by `requestId`.
///
/// A write is two steps: `planSet`, `planDelete` or `planSessionEnd` check it and
/// return a `PlannedWrite` (with the records storage must hold) without changing
/// anything; `apply` makes it. `SharedStore` keeps one behind a lock, persists each
/// plan between the two steps, and announces the changes: a change that cannot be
/// stored is not made.
struct StoreState {
    private(set) var entries: EntryTable
    /// The keys in byte order, for `list` and prefix snapshots.
    private(set) var keys: OrderedKeyIndex
    /// The revision of the last change; the next change takes `revision + 1`.
    private(set) var revision: Int64
    /// The session-bound keys of each session, by session id.
    private(set) var sessionBoundKeys: [String: Set<StoreKey>] = [:]
    /// When the expiring keys expire (kept in step with `entries` by `replace`).
    private(set) var expiries = ExpiryMachine()
    /// The writes with a `requestId` that a retry must not apply again.
    private(set) var appliedWrites: AppliedWrites
    /// The bytes the entries take in memory, as `Footprint` counts them.
    private(set) var bytes = 0
    let maxKeys: Int
    /// The most `bytes` a write may bring the store to (docs/protocol.md "Memory").
    let maxBytes: Int

    init(
        maxKeys: Int, maxBytes: Int = ServerLimits().maxStoreBytes, entries: EntryTable = EntryTable(),
        keys: OrderedKeyIndex = OrderedKeyIndex(), revision: Int64 = 0,
        appliedWrites: AppliedWrites = AppliedWrites(capacity: 1_000_000)
    ) {
        self.maxKeys = maxKeys
        self.maxBytes = maxBytes
        self.entries = entries
        self.keys = keys
        self.revision = revision
        self.appliedWrites = appliedWrites
        // swift-format-ignore: ReplaceForEachWithForLoop
        // (EntryTable is not a Sequence; its forEach walks its slots in place.)
        entries.forEach { entry in
            bytes += Footprint.of(entry: entry)
            if entry.sessionBound { sessionBoundKeys[entry.session, default: []].insert(StoreKey(entry.key)) }
            if let expiry = entry.expiry { expiries.schedule(entry.key, at: expiry.deadline) }
        }
    }

    /// The entry of `key`, if it exists.
    func entry(_ key: String) -> RawValueEntry? {
        entries[key]
    }

    /// Plans writing `value` to `key`. An equal value with the same binding changes
    /// nothing (no version, no change); making a key session-bound, or lasting
    /// again, or binding it to another session, is a change even when the value is
    /// equal; so is making it expiring or lasting again. With `ttl` the key
    /// expires `ttl` seconds after `now` (milliseconds since 1970); an equal value
    /// with `ttl` on an expiring key changes nothing but restarts its clock.
    ///
    /// - Throws: `conflict` when `ifVersion` does not match (0 means "must not exist"),
    ///   `limit_exceeded` when creating a key would pass `maxKeys`.
    func planSet(
        _ key: String, to value: EncodedJSON, ifVersion: Int64?, sessionBound: Bool = false, requestId: String? = nil,
        ttl: Int64? = nil, by author: Author, now: Int64 = 0
    ) throws(WireError) -> PlannedWrite {
        if let requestId, let applied = appliedWrites.lookup(requestId, now: now) {
            return PlannedWrite(answer: applied.duplicatePayload)
        }
        let entryKey = EntryKey(key)
        let (stored, slot) = entries.locate(entryKey)
        try checkVersion(of: key, existing: stored, expected: ifVersion)
        let expiry = ttl.map { KeyExpiry(seconds: $0, after: now, by: author) }
        if let existing = stored?.entry, existing.sessionBound == sessionBound,
            (existing.expiry == nil) == (expiry == nil), !sessionBound || existing.session == author.session,
            existing.value == value
        {
            let reply = AppliedWrite.Reply.set(key: key, version: existing.version, changed: false)
            var restarted = existing
            restarted.expiry = expiry
            return PlannedWrite(
                unchanged: .set(key: key, version: existing.version, changed: false),
                applied: remembered(requestId, reply, now: now), key: entryKey,
                entry: expiry == nil ? nil : StoredEntry(restarted, key: entryKey), replaced: stored,
                byteChange: expiry == nil ? 0 : Footprint.of(entry: restarted) - Footprint.of(entry: existing),
                slot: slot)
        }
        if stored == nil && entries.count >= maxKeys {
            throw WireError(
                code: .limitExceeded,
                message: "the store holds its maximum of \(maxKeys) keys; delete keys or raise limits.maxKeys")
        }
        let version = revision + 1
        let unboxed = RawValueEntry(
            key: key, value: value, version: version, author: author.name, session: author.session,
            sessionBound: sessionBound, expiry: expiry)
        let entryBytes = Footprint.of(entry: unboxed)
        let entry = StoredEntry(consume unboxed, key: entryKey)
        let byteChange = entryBytes - (stored.map { Footprint.of(entry: $0.entry) } ?? 0)
        if byteChange > 0 { try checkBytes(adding: byteChange) }
        let change = StoreChange.update(
            key: key, old: stored?.entry.value, new: value, version: version, by: author, sessionBound: sessionBound,
            ttl: ttl, heldBytes: entryBytes)
        return PlannedWrite(
            change: change, applied: remembered(requestId, .set(key: key, version: version, changed: true), now: now),
            key: entryKey, entry: entry, replaced: stored, byteChange: byteChange, slot: slot)
    }

    /// Throws `limit_exceeded` when growing the store by `byteChange` would pass
    /// `maxBytes`. A write that shrinks the store always goes through, so that a
    /// full store can be made smaller without deleting keys.
    private func checkBytes(adding byteChange: Int) throws(WireError) {
        guard byteChange > 0, bytes + byteChange > maxBytes else { return }
        throw WireError(
            code: .limitExceeded,
            message: "the store holds \(bytes) of its maximum of \(maxBytes) bytes and this write needs "
                + "\(byteChange) more; delete keys, store smaller values or raise limits.maxStoreBytes")
    }

    /// Plans removing `key`.
    ///
    /// - Throws: `not_found` when it does not exist and there is no
    ///   `ifVersion`; `conflict` when `ifVersion` does not match, and when the
    ///   key does not exist, whatever `ifVersion` says: docs/protocol.md answers a
    ///   conditional delete of a missing key with `conflict` (version 0),
    ///   since there is nothing to delete even when `ifVersion` is 0.
    func planDelete(
        _ key: String, ifVersion: Int64?, requestId: String? = nil, by author: Author, now: Int64 = 0
    ) throws(WireError) -> PlannedWrite {
        if let requestId, let applied = appliedWrites.lookup(requestId, now: now) {
            return PlannedWrite(answer: applied.duplicatePayload)
        }
        let entryKey = EntryKey(key)
        let (found, slot) = entries.locate(entryKey)
        guard let stored = found else {
            throw ifVersion == nil ? WireError.notFound(key: key) : WireError.conflictDeletingMissing(key: key)
        }
        try checkVersion(of: key, existing: stored, expected: ifVersion)
        let change = StoreChange.delete(key: key, old: stored.entry.value, version: revision + 1, by: author)
        let reply = AppliedWrite.Reply.delete(key: key, version: change.version)
        return PlannedWrite(
            change: change, applied: remembered(requestId, reply, now: now), key: entryKey, entry: nil,
            replaced: stored, byteChange: -Footprint.of(entry: stored.entry), slot: slot)
    }

    /// Plans deleting the keys bound to `session`, each as a change by its owner
    /// with reason `session_ended`, in revision order (apply them in that order).
    func planSessionEnd(_ session: String) -> [PlannedWrite] {
        guard let bound = sessionBoundKeys[session] else { return [] }
        var planned: [PlannedWrite] = []
        var version = revision
        for key in bound.sorted(by: { StoreKey.byteOrder($0.text, $1.text) }) {
            let entryKey = EntryKey(key.text)
            guard let stored = entries[entryKey] else { continue }
            let existing = stored.entry
            version += 1
            let owner = Author(name: existing.author, session: existing.session)
            let change = StoreChange.delete(
                key: key.text, old: existing.value, version: version, by: owner, reason: RawEvent.sessionEnded)
            planned.append(
                PlannedWrite(
                    change: change, applied: nil, key: entryKey, entry: nil, replaced: stored,
                    byteChange: -Footprint.of(entry: existing)))
        }
        return planned
    }

    /// Takes out the expiring keys due at `now` (milliseconds since 1970), at
    /// most `limit`, and plans deleting each as a change by the author of the
    /// write that set its expiry, with reason `expired`, in revision order (apply
    /// them in that order). A key whose plan is not applied must be scheduled
    /// again (`reschedule`).
    mutating func planExpiry(now: Int64, limit: Int) -> [PlannedWrite] {
        var planned: [PlannedWrite] = []
        var version = revision
        for key in expiries.takeDue(now: now, limit: limit) {
            let entryKey = EntryKey(key)
            guard let stored = entries[entryKey], let expiry = stored.entry.expiry else { continue }
            version += 1
            let setter = Author(name: expiry.author, session: expiry.session)
            let change = StoreChange.delete(
                key: key, old: stored.entry.value, version: version, by: setter, reason: RawEvent.expired)
            planned.append(
                PlannedWrite(
                    change: change, applied: nil, key: entryKey, entry: nil, replaced: stored,
                    byteChange: -Footprint.of(entry: stored.entry)))
        }
        return planned
    }

    /// Schedules the expiry of `key` again from its entry: after a planned
    /// expiry that was not applied.
    mutating func reschedule(_ key: String) {
        guard let expiry = entries[EntryKey(key)]?.entry.expiry else { return }
        expiries.schedule(key, at: expiry.deadline)
    }

    /// The earliest time (milliseconds since 1970) an expiring key may be due.
    var nextExpiry: Int64? {
        expiries.nextDeadline
    }

    /// Makes a planned write: takes its revision, replaces the entry, and
    /// remembers its `requestId`. Plans apply in the order they were made.
    ///
    /// - Returns: the change to announce, if any, and the reply's fields.
    @discardableResult
    mutating func apply(_ planned: borrowing PlannedWrite) -> (change: StoreChange?, payload: ReplyPayload) {
        let payload = planned.payload
        return (applyChange(planned), payload)
    }

    /// Makes a planned write, as `apply` does, and returns its change, if any,
    /// without its reply.
    @discardableResult
    mutating func applyChange(_ planned: borrowing PlannedWrite) -> StoreChange? {
        if let applied = planned.applied {
            appliedWrites.remember(applied, now: applied.appliedAt)
        }
        guard let change = planned.change else {
            if let restarted = planned.stored {
                replace(planned.key, planned.replaced, with: restarted, at: planned.slot)
            }
            return nil
        }
        revision = change.version
        bytes += planned.byteChange
        replace(planned.key, planned.replaced, with: planned.stored, at: planned.slot)
        return change
    }

    /// Remembers a write under its `requestId` (a batch's, which is no single key's write).
    mutating func remember(_ applied: AppliedWrite) {
        appliedWrites.remember(applied, now: applied.appliedAt)
    }

    /// Plans a change etcd has already decided (cluster mode's cache): no rule is
    /// checked, the old value comes from this state. A deletion without an
    /// author is the owner's; when the key was session-bound, its session ended;
    /// else, when it was expiring, its time ran out: in the name of the write
    /// that set the expiry, with reason `expired` (as `.expire`). A restart of a
    /// clock replaces only the entry's expiry, and announces nothing.
    ///
    /// `at` is the change's time from etcd, when its envelope carries one (now otherwise).
    ///
    /// - Returns: `nil` for the deletion of a key this state does not hold.
    func planReplicated(_ replicated: ClusterChange, at: Int64? = nil) -> PlannedWrite? {
        let entryKey = EntryKey(replicated.key)
        let stored = entries[entryKey]
        let at = at ?? StoreChange.now()
        switch replicated {
        case .set(let entry):
            let change = StoreChange.update(
                key: entry.key, old: stored?.entry.value, new: entry.value, version: entry.version,
                by: Author(name: entry.author, session: entry.session), sessionBound: entry.sessionBound,
                ttl: entry.expiry?.seconds, at: at)
            return PlannedWrite(
                change: change, applied: nil, key: entryKey, entry: StoredEntry(entry, key: entryKey), replaced: stored,
                byteChange: Footprint.of(entry: entry) - (stored.map { Footprint.of(entry: $0.entry) } ?? 0))
        case .restart(_, _, let expiry):
            guard let stored else { return nil }
            let existing = stored.entry
            var restarted = existing
            restarted.expiry = expiry
            return PlannedWrite(
                unchanged: .set(key: existing.key, version: existing.version, changed: false), applied: nil,
                key: entryKey, entry: StoredEntry(restarted, key: entryKey), replaced: stored,
                byteChange: Footprint.of(entry: restarted) - Footprint.of(entry: existing))
        case .delete(_, let version, let author):
            return Self.planReplicatedDeletion(of: stored, key: entryKey, version: version, by: author, at: at)
        case .expire(_, let version):
            return Self.planReplicatedDeletion(
                of: stored, key: entryKey, version: version, by: nil, expired: true, at: at)
        }
    }

    /// Plans a replicated deletion of `existing`: by `author`, or when none was
    /// recorded, as `planReplicated(_:)` says.
    private static func planReplicatedDeletion(
        of stored: StoredEntry?, key entryKey: EntryKey, version: Int64, by author: Author?, expired: Bool = false,
        at: Int64
    ) -> PlannedWrite? {
        guard let stored else { return nil }
        let (existing, key) = (stored.entry, entryKey.text)
        var by = author ?? Author(name: existing.author, session: existing.session)
        var reason = author == nil && existing.sessionBound ? RawEvent.sessionEnded : nil
        if let expiry = existing.expiry, author == nil, expired || !existing.sessionBound {
            (by, reason) = (Author(name: expiry.author, session: expiry.session), RawEvent.expired)
        }
        let change = StoreChange.delete(
            key: key, old: existing.value, version: version, by: by, reason: reason, at: at)
        return PlannedWrite(
            change: change, applied: nil, key: entryKey, entry: nil, replaced: stored,
            byteChange: -Footprint.of(entry: existing))
    }

    /// The state of a cluster node's cache holding `entries`, read from etcd at
    /// `revision`, with no limit of its own on keys (etcd decides every write).
    static func replica(of entries: [RawValueEntry], at revision: Int64) -> StoreState {
        var data = StoreState(maxKeys: .max, maxBytes: .max, appliedWrites: AppliedWrites(capacity: 1))
        for entry in entries.sorted(by: { $0.version < $1.version }) {
            if let planned = data.planReplicated(.set(entry)) { data.apply(planned) }
        }
        data.advanceRevision(to: revision)
        return data
    }

    /// Takes `revision` as the last one when it is later: etcd's revision moved
    /// on with changes outside what this state holds.
    mutating func advanceRevision(to revision: Int64) {
        self.revision = max(self.revision, revision)
    }

    /// The sessions that own session-bound keys.
    var sessionsWithSessionBoundKeys: [String] {
        Array(sessionBoundKeys.keys)
    }

    /// A copy of the keys and entries, cheap to take (see `OrderedKeyIndex` and
    /// `EntryTable`), to read after the store's lock is released.
    var view: StoreView {
        StoreView(keys: keys, entries: entries)
    }

    /// The write to remember under `requestId`, if there is one.
    private func remembered(
        _ requestId: String?, _ reply: @autoclosure () -> AppliedWrite.Reply, now: Int64
    ) -> AppliedWrite? {
        requestId.map { AppliedWrite(requestId: $0, appliedAt: now, reply: reply()) }
    }

    /// Puts `new` in place of `old` (either may be missing), keeping the key
    /// index, the session-bound keys and the expiring keys in step. A key that
    /// neither is nor was session-bound or expiring touches neither of those.
    /// `slot` is where planning found the key (`EntryTable.locate`), if it did.
    private mutating func replace(
        _ key: EntryKey, _ old: StoredEntry?, with new: StoredEntry?, at slot: EntrySlot = .unknown
    ) {
        if let old, old.entry.sessionBound {
            let session = old.entry.session
            sessionBoundKeys[session]?.remove(StoreKey(key.text))
            if sessionBoundKeys[session]?.isEmpty == true { sessionBoundKeys[session] = nil }
        }
        if let new, new.entry.sessionBound {
            sessionBoundKeys[new.entry.session, default: []].insert(StoreKey(key.text))
        }
        if let expiry = new?.entry.expiry {
            expiries.schedule(key.text, at: expiry.deadline)
        } else if old?.entry.expiry != nil {
            expiries.cancel(key.text)
        }
        let isNew = new != nil
        entries.set(new, for: key, at: slot, found: old)
        switch (old == nil, isNew) {
        case (true, true): keys.insert(key.text)
        case (false, false): keys.remove(key.text)
        default: break
        }
    }

    private func checkVersion(of key: String, existing: StoredEntry?, expected: Int64?) throws(WireError) {
        guard let expected else { return }
        let current = existing?.entry.version ?? 0
        guard current == expected else {
            throw WireError.conflict(key: key, expected: expected, current: current)
        }
    }
}
