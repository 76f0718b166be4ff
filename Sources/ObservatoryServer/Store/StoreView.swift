import ObservatoryWire

/// A consistent copy of the store's keys and entries, taken under the store's
/// lock in O(1) and read after it is released, so that `list` and prefix
/// snapshots never hold up writers however many keys they walk.
struct StoreView: Sendable {
    let keys: OrderedKeyIndex
    let entries: EntryTable

    /// The entries whose keys start with `prefix`, in byte order of their keys.
    func entries(withPrefix prefix: String) -> [RawValueEntry] {
        var found: [RawValueEntry] = []
        keys.forEach(withPrefix: prefix) { key in
            if let entry = entries[key] { found.append(entry) }
            return true
        }
        return found
    }

    /// One page of keys under `prefix` after `after` that `isIncluded` lets
    /// through, at most `limit`, and whether more follow.
    func page(
        prefix: String, after: String?, limit: Int, where isIncluded: (String) -> Bool
    ) -> (keys: [KeyVersion], more: Bool) {
        var page: [KeyVersion] = []
        var more = false
        keys.forEach(withPrefix: prefix, after: after) { key in
            guard isIncluded(key), let entry = entries[key] else { return true }
            guard page.count < limit else {
                more = true
                return false
            }
            page.append(KeyVersion(key: key, version: entry.version))
            return true
        }
        return (page, more)
    }
}
