import ObservatoryWire

extension ObservatoryClient {
    /// Announces this client as `name` under `prefix` and follows who else is there.
    ///
    /// Writes the session-bound key `prefix + name` (value `true`), which the
    /// server deletes when this client's session ends and which the presence
    /// writes again after each reconnect. Then lists the keys under `prefix` and
    /// follows their changes. See ``Presence``.
    ///
    /// - Throws: the errors of ``set(_:_:ifVersion:ephemeral:)``, ``list(prefix:)``
    ///   and ``changes(of:slow:)`` (`invalid_key`, `forbidden`, ``ClientError/notConnected(_:)``).
    public func presence(under prefix: String, as name: String) async throws(ClientError) -> Presence {
        let changes = try await self.changes(of: .prefix(prefix))
        try await set(prefix + name, true, ephemeral: true)
        let listed = try await list(prefix: prefix)
        let versions = Dictionary(
            listed.map { (String($0.key.dropFirst(prefix.count)), $0.version) }, uniquingKeysWith: max)
        let presence = Presence(prefix: prefix, name: name, members: Set(versions.keys))
        presence.follow(changes, versions: versions, deliveryQueue: deliveryQueue)
        presence.announceAfterReconnects(on: self)
        return presence
    }

    /// Leaves `presence`: stops announcing and following, and deletes this client's key.
    public func leave(_ presence: Presence) async throws(ClientError) {
        presence.stop()
        do {
            try await delete(presence.prefix + presence.name)
        } catch  where error.serverError?.code == .notFound {
            return
        }
    }
}
