import ObservatoryWire

extension ObservatoryClient {
    /// Sends any request and returns the server's success reply object as it came.
    ///
    /// The typed calls (``get(_:)``, `set(_:_:ifVersion:)`, ...) are built on
    /// this; use it for raw access, as the command-line tool's `--json` does.
    /// - Throws: ``ClientError/server(_:)`` with the server's code and message;
    ///   ``ClientError/notConnected(_:)`` when the client is not in sync (it does
    ///   not wait for a connection); ``ClientError/connectionLost(_:)`` when the
    ///   connection ended before the reply.
    public func send(_ operation: Operation<JSONValue>) async throws(ClientError) -> JSONObject {
        let reply = try await received(operation)
        switch reply.outcome {
        case .success(let object): return object
        case .failure(let error): throw .server(error)
        }
    }

    /// Reads a key's value with its version and author.
    /// - Throws: ``ClientError/server(_:)`` with code `not_found` when the key does not exist.
    public func get(_ key: String) async throws(ClientError) -> RemoteEntry {
        guard case .get(let entry) = try await payload(of: .get(key: key)) else { throw unexpected(.get) }
        let author = state.withLock { $0.machine.author(session: entry.session, name: entry.author) }
        return RemoteEntry(key: entry.key, value: entry.value, version: entry.version, author: author)
    }

    /// Reads a key's value decoded as `type`.
    /// - Throws: `not_found` as ``get(_:)``; ``ClientError/undecodableValue(key:version:type:detail:)``
    ///   when the value is not a `Value`.
    public func get<Value: Decodable>(_ key: String, as type: Value.Type) async throws(ClientError) -> Value {
        let entry = try await get(key)
        do {
            return try entry.value.decode(type)
        } catch {
            throw .undecodableValue(
                key: key, version: entry.version, type: String(describing: type), detail: String(describing: error))
        }
    }

    /// Sets a key to a value (a `JSONValue` is sent as it is).
    ///
    /// The write carries a `requestId`. If the connection breaks before the
    /// reply, the client waits for the reconnect (up to
    /// ``ClientConfiguration/writeRetryTimeout``) and sends it again with the
    /// same id; the server applies it once and answers with the first reply.
    ///
    /// - Parameters:
    ///   - key: The key to write.
    ///   - value: The new value; any `Encodable` that encodes as JSON.
    ///   - ifVersion: Only set if the key is at this version (0: only if it does
    ///     not exist); otherwise the request fails with code `conflict` and the
    ///     error carries the current version.
    ///   - sessionBound: Bind the key to this client's session: the server deletes
    ///     it when the connection ends, for any reason, with a delete event whose
    ///     reason is `session_ended`. A later write without the flag makes it lasting.
    ///   - ttl: Make the key expire this many seconds (1 to 31,536,000) after
    ///     this write: the server deletes it then, with a delete event whose
    ///     reason is `expired`. A later write with a `ttl` restarts the clock, one
    ///     without makes the key lasting again.
    @discardableResult
    public func set<Value: Encodable>(
        _ key: String, _ value: Value, ifVersion: Int64? = nil, sessionBound: Bool = false, ttl: Int64? = nil
    ) async throws(ClientError) -> WriteResult {
        let encoded: JSONValue
        do {
            encoded = try JSONValue(encoding: value)
        } catch {
            throw .unencodableValue(key: key, detail: String(describing: error))
        }
        let operation = Operation<JSONValue>.set(
            key: key, value: encoded, ifVersion: ifVersion, sessionBound: sessionBound,
            requestId: RequestIdentifier.make(),
            ttl: ttl)
        guard case .set(_, let version, let changed, _) = try await write(operation) else {
            throw unexpected(.set)
        }
        return WriteResult(version: version, changed: changed)
    }

    /// Deletes a key and returns the revision of the delete; retried safely as ``set(_:_:ifVersion:sessionBound:ttl:)`` is.
    /// - Throws: `not_found` when the key does not exist; `conflict` when
    ///   `ifVersion` is given and does not match.
    @discardableResult
    public func delete(_ key: String, ifVersion: Int64? = nil) async throws(ClientError) -> Int64 {
        let operation = Operation<JSONValue>.delete(key: key, ifVersion: ifVersion, requestId: RequestIdentifier.make())
        guard case .delete(_, let version, _) = try await write(operation) else {
            throw unexpected(.delete)
        }
        return version
    }

    /// Sends a write with a `requestId`; when the connection breaks before its
    /// reply, waits for the next resync and sends it again (the server applies it once).
    func write(_ operation: Operation<JSONValue>) async throws(ClientError) -> ReplyPayload {
        var attempts = 1
        while true {
            do {
                return try await payload(of: operation)
            } catch {
                guard error.code == .connectionLost, configuration.reconnects, attempts < Self.maxWriteAttempts else {
                    throw error
                }
                attempts += 1
                logger.log(.info, "resending a \(operation.kind.rawValue) whose reply was lost (\(error))")
                try await waitUntilSynchronized(timeout: configuration.writeRetryTimeout)
            }
        }
    }

    /// How often a write is sent at most when connections keep breaking.
    private static let maxWriteAttempts = 5

    /// The keys that start with `prefix` ("" for all), with their versions, in
    /// the order of their bytes. Asks page after page, so it returns them all
    /// whatever the server's cap on one reply.
    public func list(prefix: String = "") async throws(ClientError) -> [KeyVersion] {
        var keys: [KeyVersion] = []
        var after: String?
        while true {
            let page = try await listPage(prefix: prefix, after: after)
            keys += page.keys
            guard page.more, let last = page.keys.last else { return keys }
            after = last.key
        }
    }

    /// One page of `list`: the keys under `prefix` after the key `after`, at most
    /// `limit` (and at most the server's cap), and whether more follow; ask for the
    /// next page with `after` set to the last key returned.
    public func listPage(
        prefix: String = "", after: String? = nil, limit: Int64? = nil
    ) async throws(ClientError) -> (keys: [KeyVersion], more: Bool) {
        guard case .list(let keys, let more) = try await payload(of: .list(prefix: prefix, after: after, limit: limit))
        else { throw unexpected(.list) }
        return (keys, more)
    }

    /// A round trip to the server.
    public func ping() async throws(ClientError) {
        _ = try await payload(of: .ping)
    }

    /// The changes of one key, or of every key under a prefix, as they happen.
    ///
    /// The server is asked to observe the target before this returns, so a bad
    /// key or a forbidden prefix throws here. The stream carries changes only
    /// (no snapshot), in version order per key, and survives reconnects: the
    /// client resumes the target after each one, and the server replays the
    /// changes made meanwhile, once each, with their authors. If it cannot
    /// (``ConnectionState/reset(_:)``), the changes made meanwhile are not in
    /// the stream. It finishes when the client closes, or when the connection
    /// ends and the client does not reconnect; stop iterating to end it.
    ///
    /// `slow` says what the server does when this client falls behind the
    /// target's changes: with `SlowPolicy.coalesce` (the default) it merges the
    /// pending changes of each key into one (the stream then skips intermediate
    /// values); with `SlowPolicy.close` it never merges them and closes the
    /// connection instead, and the client reconnects and resumes from the revision
    /// the server says everything was sent up to: the stream misses no change.
    /// (When one watcher of a target asks for `close`, the target is observed so
    /// for every watcher and mirror of it, as the server does for a key that a
    /// `close` prefix covers.)
    public func changes(of target: Target, slow: SlowPolicy = .coalesce) async throws(ClientError)
        -> AsyncStream<RemoteChange>
    {
        try await watch(target, from: nil, slow: slow).changes
    }

    /// The changes of a target after `revision`, then as they happen: the
    /// server replays the target's changes after `revision` if it still holds
    /// them all (`resumed` is true), else the stream starts now.
    ///
    /// For a program that stored the revision it had seen (``RemoteChange/version``)
    /// and starts again later; the stream then resumes like ``changes(of:slow:)``.
    /// `slow` as for ``changes(of:slow:)``.
    public func changes(of target: Target, after revision: Int64, slow: SlowPolicy = .coalesce)
        async throws(ClientError) -> (changes: AsyncStream<RemoteChange>, resumed: Bool)
    {
        try await watch(target, from: ResumePoint(revision: revision, epoch: nil), slow: slow)
    }

    private func watch(_ target: Target, from resumePoint: ResumePoint?, slow: SlowPolicy) async throws(ClientError)
        -> (changes: AsyncStream<RemoteChange>, resumed: Bool)
    {
        let (stream, continuation) = AsyncStream<RemoteChange>.makeStream()
        let identifier = state.withLock {
            $0.machine.addWatcher(Watcher(target: target, continuation: continuation, slow: slow))
        }
        continuation.onTermination = { [weak self] _ in
            self?.stopWatching(identifier)
        }
        do {
            let resumed = try await observeForWatcher(target, from: resumePoint, slow: slow)
            return (stream, resumed)
        } catch {
            continuation.finish()
            throw error
        }
    }

    /// Adds `watcher` and observes its target; returns the watcher's identifier
    /// (for ``stopWatching(_:)``). A watcher whose observe fails is removed.
    func addWatcher(_ watcher: Watcher) async throws(ClientError) -> Int {
        let identifier = state.withLock { $0.machine.addWatcher(watcher) }
        do {
            _ = try await observeForWatcher(watcher.target, from: nil, slow: watcher.slow)
            return identifier
        } catch {
            stopWatching(identifier)
            throw error
        }
    }

    /// Observes a watcher's target; its reply is applied on the I/O thread,
    /// before any later event, so the target's progress counts from there.
    private func observeForWatcher(_ target: Target, from resumePoint: ResumePoint?, slow: SlowPolicy)
        async throws(ClientError) -> Bool
    {
        let link = try state.withLock { (state: inout State) throws(ClientError) in try state.machine.linkForRequest() }
        let outcome = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<ReceivedReply, ClientError>, Never>) in
            send(.observe(target, from: resumePoint, slow: slow), on: link) { [weak self] result in
                // A resume point from the caller is not a reconnect: a refusal is no reset.
                self?.applyObserveReply(result, target: target, mirrors: [], link: link, resumePoint: nil)
                continuation.resume(returning: result)
            }
        }
        let reply = try outcome.get()
        if case .failure(let error) = reply.outcome { throw .server(error) }
        guard case .observe(_, _, let resumed)? = try? reply.payload(for: .observe) else { return false }
        return resumed == true
    }

    // MARK: Plumbing

    /// Sends `operation` on `link`: the machine registers the request (so its
    /// reply finds it), the link writes it. `completion` gets the reply, or why
    /// none will come (at once, when the link has ended).
    func send(_ operation: Operation<JSONValue>, on link: ServerLink, completion: @escaping RequestCompletion) {
        guard let identifier = state.withLock({ $0.machine.register(completion, on: link) }) else {
            return completion(.failure(.connectionLost(link.endReason ?? .closedByServer)))
        }
        // A link that ends meanwhile writes nothing; its end fails the request.
        link.write(Request(id: .integer(identifier), operation: operation))
    }

    /// Sends `operation` on `link` and waits for its reply.
    func request(_ operation: Operation<JSONValue>, on link: ServerLink) async -> Result<ReceivedReply, ClientError> {
        await withCheckedContinuation { continuation in
            send(operation, on: link) { result in continuation.resume(returning: result) }
        }
    }

    /// A reply came on `link` (on the I/O thread): the request it answers
    /// completes now, before the next frame is looked at.
    func handle(_ reply: ReceivedReply, from link: ServerLink) {
        // The events before the reply were all sent: their run is complete, and applied first.
        apply(run: state.withLock { $0.machine.runInterrupted(on: link) }, from: link)
        guard case .integer(let identifier)? = reply.id else { return }
        switch state.withLock({ $0.machine.replied(identifier, on: link) }) {
        case .complete(let completion): completion(.success(reply))
        case let action: perform(action)
        }
    }

    /// Forgets a watcher, and asks the server to stop observing its target when
    /// no other watcher or mirror needs it.
    func stopWatching(_ identifier: Int) {
        let unneeded = state.withLock { $0.machine.removeWatcher(identifier) }
        guard let (target, link) = unneeded else { return }
        send(.unobserve(target), on: link) { _ in }
    }

    private func received(_ operation: Operation<JSONValue>) async throws(ClientError) -> ReceivedReply {
        let link = try state.withLock { (state: inout State) throws(ClientError) in try state.machine.linkForRequest() }
        return try await request(operation, on: link).get()
    }

    func payload(of operation: Operation<JSONValue>) async throws(ClientError) -> ReplyPayload {
        let reply = try await received(operation)
        do {
            return try reply.payload(for: operation.kind)
        } catch {
            throw reply.outcome.isFailure ? .server(error) : .badReply(error.message)
        }
    }

    func unexpected(_ kind: OperationKind) -> ClientError {
        .badReply("the reply to \(kind.rawValue) has the fields of another op")
    }
}
