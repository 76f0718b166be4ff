import ObservatoryWire

/// The store's data and its rules, as a plain value: entries by key, the global
/// revision, compare-and-set and the key limit.
///
/// `SharedStore` keeps one behind a lock and announces the changes it returns.
/// Every mutation goes through `set` or `delete` and yields a `StoreChange`, the
/// record a persistent log would append and replay.
struct StoreState {
    /// The result of a `set`: the key's version afterwards, and the change if the value changed.
    struct SetOutcome: Equatable {
        let version: Int64
        let change: StoreChange?
    }

    private(set) var entries: [String: ValueEntry] = [:]
    /// The revision of the last change; the next change takes `revision + 1`.
    private(set) var revision: Int64 = 0
    let maxKeys: Int

    init(maxKeys: Int) {
        self.maxKeys = maxKeys
    }

    /// The entry of `key`, if it exists.
    func entry(_ key: String) -> ValueEntry? {
        entries[key]
    }

    /// Writes `value` to `key`. An equal value changes nothing (no version, no change).
    ///
    /// - Throws: `conflict` when `ifVersion` does not match (0 means "must not exist"),
    ///   `limit_exceeded` when creating a key would pass `maxKeys`.
    mutating func set(_ key: String, to value: JSONValue, ifVersion: Int64?, by author: SessionIdentity)
        throws(WireError) -> SetOutcome
    {
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
        revision += 1
        entries[key] = ValueEntry(
            key: key, value: value, version: revision, author: author.name, session: author.session)
        let change = StoreChange.update(key: key, old: existing?.value, new: value, version: revision, by: author)
        return SetOutcome(version: revision, change: change)
    }

    /// Removes `key`.
    ///
    /// - Throws: `not_found` when it does not exist and there is no
    ///   `ifVersion`; `conflict` when `ifVersion` does not match, and when the
    ///   key does not exist, whatever `ifVersion` says: PROTOCOL.md answers a
    ///   conditional delete of a missing key with `conflict` (version 0),
    ///   since there is nothing to delete even when `ifVersion` is 0.
    mutating func delete(_ key: String, ifVersion: Int64?, by author: SessionIdentity) throws(WireError)
        -> StoreChange
    {
        guard let existing = entries[key] else {
            throw ifVersion == nil ? WireError.notFound(key: key) : WireError.conflictDeletingMissing(key: key)
        }
        try checkVersion(of: key, existing: existing, expected: ifVersion)
        revision += 1
        entries[key] = nil
        return StoreChange.delete(key: key, old: existing.value, version: revision, by: author)
    }

    /// The entries whose keys start with `prefix`, sorted by key.
    func entries(withPrefix prefix: String) -> [ValueEntry] {
        let matching = prefix.isEmpty ? Array(entries.values) : entries.values.filter { $0.key.hasPrefix(prefix) }
        return matching.sorted { $0.key < $1.key }
    }

    private func checkVersion(of key: String, existing: ValueEntry?, expected: Int64?) throws(WireError) {
        guard let expected else { return }
        let current = existing?.version ?? 0
        guard current == expected else {
            throw WireError.conflict(key: key, expected: expected, current: current)
        }
    }
}
