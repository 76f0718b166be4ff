import ObservatoryWire

extension ObservatoryClient {
    /// The changes the server still holds of a key or of the keys under a prefix,
    /// with who made each one and when, the values decoded as `Value`.
    ///
    /// ```swift
    /// let page = try await client.history(HistoryQuery(.key("door.locked"), limit: 20, newestFirst: true), as: Bool.self)
    /// for entry in page.entries { print(entry.author, entry.date, entry.new as Any) }
    /// ```
    ///
    /// One request, one page: when `more` is true, ask again with `fromRevision`
    /// (oldest first) or `toRevision` (newest first) set past the last entry's version.
    /// - Throws: ``ClientError/server(_:)`` with `forbidden` without read rights to
    ///   the key or prefix, `bad_request` for a `limit` outside 1–1,000;
    ///   ``ClientError/undecodableValue(key:version:type:detail:)`` when a value is not a `Value`.
    public func history<Value: Decodable & Sendable>(_ query: HistoryQuery, as type: Value.Type)
        async throws(ClientError) -> HistoryResult<Value>
    {
        guard case .history(let changes, let more, let revision, let horizon) = try await payload(of: .history(query))
        else { throw unexpected(.history) }
        var entries: [HistoryEntry<Value>] = []
        entries.reserveCapacity(changes.count)
        for change in changes {
            entries.append(try HistoryEntry(change))
        }
        return HistoryResult(entries: entries, more: more, revision: revision, horizon: horizon)
    }

    /// The most recent held changes of `key`, newest first, optionally only those
    /// made under an author name: ``history(_:as:)`` for the common question
    /// "who changed this key, to what, and when".
    public func history<Value: Decodable & Sendable>(
        of key: String, as type: Value.Type, author: String? = nil, limit: Int = HistoryQuery.defaultLimit
    ) async throws(ClientError) -> [HistoryEntry<Value>] {
        try await history(HistoryQuery(.key(key), author: author, limit: limit, newestFirst: true), as: type).entries
    }
}
