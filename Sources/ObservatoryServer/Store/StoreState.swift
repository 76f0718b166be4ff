import ObservatoryWire

/// The store's data and its rules, as a plain value: entries by key, the global
/// revision, compare-and-set and the key limit.
///
/// `SharedStore` keeps one behind a lock and announces the changes it returns.
/// Every mutation goes through `set` or `delete`, which hand the change to
/// `persist` before they apply it: a change that cannot be stored is not made.
struct StoreState {
    /// The result of a `set`: the key's version afterwards, and the change if the value changed.
    struct SetOutcome: Equatable {
        let version: Int64
        let change: StoreChange?
    }

    /// Stores a change before it is applied (the storage log), or throws to refuse it.
    typealias Persist = (StoreChange) throws(WireError) -> Void

    private(set) var entries: EntryTable
    /// The keys in byte order, for `list` and prefix snapshots.
    private(set) var keys: OrderedKeyIndex
    /// The revision of the last change; the next change takes `revision + 1`.
    private(set) var revision: Int64
    let maxKeys: Int

    init(maxKeys: Int, entries: EntryTable = EntryTable(), keys: OrderedKeyIndex = OrderedKeyIndex(), revision: Int64 = 0) {
        self.maxKeys = maxKeys
        self.entries = entries
        self.keys = keys
        self.revision = revision
    }

    /// The entry of `key`, if it exists.
    func entry(_ key: String) -> ValueEntry? {
        entries[key]
    }

    /// Writes `value` to `key`. An equal value changes nothing (no version, no change).
    ///
    /// - Throws: `conflict` when `ifVersion` does not match (0 means "must not exist"),
    ///   `limit_exceeded` when creating a key would pass `maxKeys`, or what `persist` throws.
    mutating func set(
        _ key: String, to value: JSONValue, ifVersion: Int64?, by author: SessionIdentity, persist: Persist
    ) throws(WireError) -> SetOutcome {
        let existing = entries[key]
        try checkVersion(of: key, existing: existing, expected: ifVersion)
        if let existing, existing.value == value {
            return SetOutcome(version: existing.version, change: nil)
        }
        if existing == nil && entries.count >= maxKeys {
            throw WireError(
                code: .limitExceeded,
                message: "the store holds its maximum of \(maxKeys) keys; delete keys or raise limits.maxKeys")
        }
        let version = revision + 1
        let change = StoreChange.update(key: key, old: existing?.value, new: value, version: version, by: author)
        try persist(change)
        revision = version
        entries[key] = ValueEntry(key: key, value: value, version: version, author: author.name, session: author.session)
        if existing == nil { keys.insert(key) }
        return SetOutcome(version: version, change: change)
    }

    /// Removes `key`.
    ///
    /// - Throws: `not_found` when it does not exist and there is no
    ///   `ifVersion`; `conflict` when `ifVersion` does not match, and when the
    ///   key does not exist, whatever `ifVersion` says: PROTOCOL.md answers a
    ///   conditional delete of a missing key with `conflict` (version 0),
    ///   since there is nothing to delete even when `ifVersion` is 0. Or what
    ///   `persist` throws.
    mutating func delete(_ key: String, ifVersion: Int64?, by author: SessionIdentity, persist: Persist)
        throws(WireError) -> StoreChange
    {
        guard let existing = entries[key] else {
            throw ifVersion == nil ? WireError.notFound(key: key) : WireError.conflictDeletingMissing(key: key)
        }
        try checkVersion(of: key, existing: existing, expected: ifVersion)
        let change = StoreChange.delete(key: key, old: existing.value, version: revision + 1, by: author)
        try persist(change)
        revision = change.version
        entries[key] = nil
        keys.remove(key)
        return change
    }

    /// A copy of the keys and entries, cheap to take (see `OrderedKeyIndex` and
    /// `EntryTable`), to read after the store's lock is released.
    var view: StoreView {
        StoreView(keys: keys, entries: entries)
    }

    private func checkVersion(of key: String, existing: ValueEntry?, expected: Int64?) throws(WireError) {
        guard let expected else { return }
        let current = existing?.version ?? 0
        guard current == expected else {
            throw WireError.conflict(key: key, expected: expected, current: current)
        }
    }
}
