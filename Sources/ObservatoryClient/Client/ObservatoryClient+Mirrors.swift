import Observatory
import ObservatoryWire

extension ObservatoryClient {
    /// A local `Var` that mirrors the remote key `key`.
    ///
    /// The `Var` starts with `defaultValue` and takes the remote value as soon
    /// as the snapshot arrives (or at once, when this client already mirrors
    /// `key` with the same type: then you get the same `Var`). While the key
    /// does not exist, or after it is deleted, it holds `defaultValue`.
    ///
    /// - Remote changes arrive as `Update`s whose author is the `Author` of the
    ///   session that made them; a resync that finds the key gone authors its
    ///   `Update` with the client itself.
    /// - Local changes (`value =`, `<-`, `set(_:as:)`) are sent to the server;
    ///   while disconnected, the latest one is sent after the next resync.
    /// - A remote value that does not decode as `Value` leaves the `Var` as it
    ///   is and is reported on ``errors``.
    ///
    /// ```swift
    /// let temperature = client.variable("kitchen.temperature", default: 20.0)
    /// thermostat.observe(temperature).notFrom(thermostat) { update in adjust(to: update.new) }
    /// temperature.set(21.5, as: thermostat)
    /// ```
    ///
    /// - Session-bound (`sessionBound: true`): local writes bind the key to this
    ///   client's session, so the server deletes it when the client goes away,
    ///   also when it crashes. After a reconnect the mirror writes its value
    ///   again. For presence ("alice is here") and locks.
    ///
    /// - Parameters:
    ///   - key: The remote key (1–256 bytes, no whitespace or control characters).
    ///   - defaultValue: The value while the key does not exist.
    ///   - sessionBound: Whether this mirror's writes are session-bound.
    ///   - ttl: Makes each of this mirror's writes expire that many seconds
    ///     later (an expiring key: the server deletes it, and the mirror shows
    ///     the default again, unless a later write restarts the clock). An
    ///     expiring mirror is not kept in the offline store.
    ///   - onConflict: Whether a local write still waiting to be sent gives way
    ///     to a change by someone else that the program has not seen
    ///     (``ConflictPolicy/serverWins``) or replaces it (the default); either
    ///     way it is reported on ``conflicts``. A mirror of the key made before
    ///     keeps its policy; a session-bound mirror always replaces.
    public func variable<Value: Codable & Equatable & Sendable>(
        _ key: String, default defaultValue: Value, sessionBound: Bool = false, ttl: Int64? = nil,
        onConflict: ConflictPolicy = .localWins
    ) -> Var<Value> {
        if let problem = offline?.takeLoadProblem() { report(problem) }
        let registration: (mirror: Mirror<Value>, link: ServerLink?) = state.withLock { state in
            if let existing = state.machine.registry.first(
                Mirror<Value>.self, key: key, where: { $0.sessionBound == sessionBound && $0.ttl == ttl })
            {
                return (existing, nil)
            }
            let mirror = Mirror(
                key: key, defaultValue: defaultValue, sessionBound: sessionBound, ttl: ttl, host: self,
                deliveryQueue: deliveryQueue, offline: offline, onConflict: onConflict)
            if let kept = offline?.entry(for: key), kept.isKnown, !sessionBound, ttl == nil {
                state.machine.restoreResumePoint(ResumePoint(revision: kept.revision, epoch: kept.epoch), forKey: key)
            }
            return (mirror, state.machine.register(mirror))
        }
        if let link = registration.link {
            // A mirror that starts from the offline store resumes from its kept revision, also when
            // the client connected before the program made it; any other new mirror takes a snapshot.
            sendObserves([key: [registration.mirror]], watcherTargets: [], on: link, resuming: true)
        }
        // A write the offline store kept is sent after the resync, as one made offline.
        if registration.mirror.hasRestoredWrite { requestSend(for: registration.mirror) }
        return registration.mirror.variable
    }

    /// Compare-and-set through a mirror: sets its key to `value` only if the
    /// server's version still is `ifVersion`, by default the version the mirror
    /// holds, so the write fails if anyone changed the key since the mirror
    /// last heard of it.
    ///
    /// On success the server's event brings the value into the mirror (its
    /// `Update` is authored by ``localAuthor``).
    ///
    ///     do {
    ///         try await client.set(lock, to: "mine")
    ///     } catch {
    ///         guard error.serverError?.code == .conflict else { throw error }
    ///         // someone else got there first; the mirror will show their value
    ///     }
    ///
    /// - Throws: ``ClientError/server(_:)`` with code `conflict` (and the
    ///   current version) when the version does not match;
    ///   ``ClientError/notAMirror`` when `variable` does not come from this client.
    @discardableResult
    public func set<Value: Codable & Equatable & Sendable>(
        _ variable: Var<Value>,
        to value: Value,
        ifVersion: Int64? = nil
    ) async throws(ClientError) -> WriteResult {
        let mirror = state.withLock { $0.machine.registry.first(Mirror<Value>.self) { $0.variable === variable } }
        guard let mirror else { throw .notAMirror }
        return try await set(
            mirror.key, value, ifVersion: ifVersion ?? mirror.version, sessionBound: mirror.sessionBound,
            ttl: mirror.ttl)
    }

    /// The version of the server's value that the mirrors of `key` last took;
    /// nil when this client does not mirror `key`. Use it for compare-and-set:
    /// `try await client.set(key, newValue, ifVersion: client.version(ofKey: key))`.
    public func version(ofKey key: String) -> Int64? {
        state.withLock { $0.machine.registry.byKey[key] }?.map(\.version).max()
    }
}

extension ObservatoryClient: MirrorHost {
    func requestSend(for mirror: any MirrorEndpoint) {
        let isSynchronized = state.withLock { $0.machine.mayWriteNow(mirror) }
        if isSynchronized { mirror.sendUnsentWrite() }
    }

    func sendIfSynchronized(_ operation: Operation<JSONValue>, completion: @escaping ServerLink.Completion) -> Bool {
        guard let link = state.withLock({ $0.machine.synchronizedLink }) else { return false }
        send(operation, on: link, completion: completion)
        return true
    }

    func origin(ofChangeBy author: AnyObject) -> ClientMachine<ServerLink>.ChangeOrigin {
        ClientMachine<ServerLink>.origin(ofChangeBy: author, client: self)
    }

    var resyncAuthor: any AnyObject & Sendable { self }

    func reportConflict(_ report: ConflictReport) {
        logger.log(.info, "a write to \(report.key) met \(report.replaced.count) changes by others")
        deliveryQueue.async { [conflicts] in
            conflicts.send(report)
        }
    }

    func resumePoint(forKey key: String) -> ResumePoint? {
        state.withLock { $0.machine.resumePoint(for: .key(key)) }
    }
}
