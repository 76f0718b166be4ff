import ObservatoryWire

extension ObservatoryClient {
    /// Announces this client as `name` under `prefix` and follows who else is there.
    ///
    /// Writes the session-bound key `prefix + name` (value `true`), which the
    /// server deletes when this client's session ends and which the presence
    /// writes again after each reconnect. Then lists the keys under `prefix` and
    /// follows their changes. See ``Presence``. With `ttl`, the key also
    /// expires that many seconds after each announcement: a presence that goes
    /// after a while even when the session stays.
    ///
    /// - Throws: the errors of ``set(_:_:ifVersion:sessionBound:ttl:)``, ``list(prefix:)``
    ///   and ``changes(of:slow:)`` (`invalid_key`, `forbidden`, ``ClientError/notConnected(_:)``).
    public func presence(under prefix: String, as name: String, ttl: Int64? = nil) async throws(ClientError)
        -> Presence
    {
        let presence = Presence(prefix: prefix, name: name, ttl: ttl, deliveryQueue: deliveryQueue)
        // Follow first, so that no join or leave between the list and the follow is missed.
        let identifier = try await addWatcher(
            Watcher(target: .prefix(prefix), deliver: { [presence] change in presence.take(change) }))
        presence.fed(by: identifier)
        do {
            try await set(prefix + name, true, sessionBound: true, ttl: ttl)
            let listed = try await list(prefix: prefix)
            presence.listed(
                Dictionary(listed.map { (String($0.key.dropFirst(prefix.count)), $0.version) }, uniquingKeysWith: max))
        } catch {
            if let watcher = presence.stop() { stopWatching(watcher) }
            throw error
        }
        presence.announceAfterReconnects(on: self)
        return presence
    }

    /// Leaves `presence`: stops announcing and following, and deletes this client's key.
    public func leave(_ presence: Presence) async throws(ClientError) {
        if let watcher = presence.stop() { stopWatching(watcher) }
        do {
            try await delete(presence.prefix + presence.name)
        } catch  where error.serverError?.code == .notFound {
            return
        }
    }

    /// Writes the session-bound `key` of a presence again, without waiting for
    /// the reply; a refusal goes to ``errors``. Skipped when the client is not
    /// in sync: the next `connected` writes it.
    func announce(_ key: String, ttl: Int64?) {
        let operation = Operation<JSONValue>.set(
            key: key, value: true, ifVersion: nil, sessionBound: true, requestId: RequestIdentifier.make(), ttl: ttl)
        _ = sendIfSynchronized(operation) { [weak self] result in
            switch result {
            case .success(let reply):
                if case .failure(let error) = reply.outcome { self?.report(.server(error)) }
            case .failure(let error) where error.code == .connectionLost:
                return
            case .failure(let error):
                self?.report(error)
            }
        }
    }
}
