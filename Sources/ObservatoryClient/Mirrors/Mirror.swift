import Dispatch
import Observatory
import ObservatoryWire

/// Binds a local `Var<Value>` to one remote key: remote changes become
/// `Update`s authored by an ``Author``, local changes become `set` requests.
///
/// How local and remote changes are told apart: the mirror observes its own
/// `Var`. Every change it makes itself carries an `Author`, a ``Reset``, or the
/// client (for a key a resync found missing) as author, and those it ignores; any other author
/// (the `Var` itself after `value =` or `<-`, or whoever `set(_:as:)` names)
/// is a local write, which it sends. So there is no echo loop.
///
/// How the mirror converges is ``MirrorState``'s business: it keeps the server's
/// value and version as last seen and the local writes unsent or in flight, and
/// says what the `Var` should show. Since the server orders all changes by
/// revision and the record keeps the highest version, every mirror ends on the
/// server's value once traffic stops. This class is its shell: it decodes,
/// sends, reports, and sets the `Var`.
///
/// Threading: the state sits in a `Locked` box. Snapshots, events and
/// acknowledgements arrive on the client's I/O thread; every change of
/// the `Var` made by the mirror runs on the client's delivery queue, in the
/// order the server sent the changes.
final class Mirror<Value: Codable & Equatable & Sendable>: Observer, MirrorEndpoint {
    /// The author of the mirror's own updates of the `Var`: a remote ``Author``, a
    /// ``Reset``, or the client.
    typealias UpdateAuthor = any AnyObject & Sendable

    private struct State {
        weak var host: (any MirrorHost)?
        var rules: MirrorState<Value, UpdateAuthor>
        /// The mirror heard from the server on the current link (a snapshot or a resume).
        var hasHeardFromServer = false

        var status: MirrorStatus {
            MirrorStatus(
                version: rules.version, author: rules.serverAuthor as? Author, hasUnacknowledgedWrite: !rules.isQuiet,
                mayBeStale: !hasHeardFromServer)
        }
    }

    let key: String
    /// The local variable that the program observes and changes.
    let variable: Var<Value>
    /// What the mirror knows besides the value; changes on the delivery queue.
    let status = Var(MirrorStatus.initial)
    let receiver = Receiver()
    /// Whether local writes bind the key to the client's session (PROTOCOL.md's
    /// session-bound keys); the mirror then writes its value again after each
    /// reconnect, since the server deleted it when the old session ended.
    let ephemeral: Bool
    private let deliveryQueue: DispatchQueue
    private let state: Locked<State>

    init(key: String, defaultValue: Value, ephemeral: Bool = false, host: any MirrorHost, deliveryQueue: DispatchQueue)
    {
        self.key = key
        self.ephemeral = ephemeral
        self.deliveryQueue = deliveryQueue
        self.variable = Var(defaultValue)
        self.state = Locked(State(host: host, rules: MirrorState(defaultValue: defaultValue)))
        observe(variable) { [weak self] (_: Update<Value>, author: AnyAuthor) in
            self?.variableChanged(author: author)
        }
    }

    var version: Int64 { state.withLock { $0.rules.version } }

    var hasSnapshot: Bool { state.withLock { $0.rules.hasSnapshot } }

    // MARK: Local writes

    /// Every update the mirror makes itself is authored by a remote ``Author``, a
    /// ``Reset`` or the client; any other author is the program writing: no echo.
    private func variableChanged(author: AnyAuthor) {
        defer { publishStatus() }
        guard let host = state.withLock({ $0.host }) else { return }
        if author is Author || author is Reset || host.isClient(author) { return }
        state.withLock { $0.rules.wroteLocally() }
        host.requestSend(for: self)
    }

    func sessionEnded() {
        defer { publishStatus() }
        state.withLock { $0.hasHeardFromServer = false }
        let host: (any MirrorHost)? = state.withLock { state in
            state.rules.sessionEnded(ephemeral: ephemeral) ? state.host : nil
        }
        host?.requestSend(for: self)
    }

    func sendUnsentWrite() {
        defer { publishStatus() }
        let sending: (host: any MirrorHost, requestId: String)? = state.withLock { state in
            guard let host = state.host, let requestId = state.rules.beginSend(makeIdentifier: RequestIdentifier.make)
            else { return nil }
            return (host, requestId)
        }
        guard let (host, requestId) = sending else { return }
        let value = variable.value
        let encoded: JSONValue
        do {
            encoded = try JSONValue(encoding: value)
        } catch {
            state.withLock { $0.rules.sendAbandoned() }
            host.report(.unencodableValue(key: key, detail: String(describing: error)))
            reconcileIfQuiet()
            return
        }
        let write = Operation.set(key: key, value: encoded, ifVersion: nil, ephemeral: ephemeral, requestId: requestId)
        let sent = host.sendIfSynchronized(write) { [weak self] result in
            self?.writeCompleted(value, result)
        }
        if !sent {
            state.withLock { $0.rules.sendDidNotHappen() }
            host.requestSend(for: self)
        }
    }

    private func writeCompleted(_ value: Value, _ result: Result<ReceivedReply, ClientError>) {
        defer { publishStatus() }
        guard let host = state.withLock({ $0.host }) else { return }
        let reply: MirrorState<Value, UpdateAuthor>.WriteReply
        switch result {
        case .failure(let error) where error.code == .connectionLost:
            reply = .connectionLost
        case .failure(let error):
            host.report(error)
            reply = .failed
        case .success(let received):
            do throws(WireError) {
                guard case .set(_, let version, _, _) = try received.payload(for: .set) else {
                    throw WireError(code: .badFrame, message: "the reply to set has the fields of another op")
                }
                reply = .acknowledged(version: version)
            } catch {
                // The server refused the write (forbidden, value_too_large, ...)
                // or answered nonsense: report it; the `Var` goes back to the
                // server's value.
                host.report(received.outcome.isFailure ? .server(error) : .badReply(error.message))
                reply = .refused
            }
        }
        let author: UpdateAuthor = host.localAuthor ?? host.resyncAuthor
        let sendAgain = state.withLock { $0.rules.writeReplied(reply, value: value, author: author) }
        if sendAgain {
            host.requestSend(for: self)
        } else {
            reconcileIfQuiet()
        }
    }

    // MARK: Remote changes

    func resume(generation: Int) {
        defer { publishStatus() }
        state.withLock { $0.hasHeardFromServer = true }
        state.withLock { $0.rules.resumed(generation: generation) }
    }

    func applySnapshot(_ entry: ValueEntry?, author: Author?, reset: Reset?, generation: Int) {
        defer { publishStatus() }
        state.withLock { $0.hasHeardFromServer = true }
        let remote = entry.map { decode($0.value) } ?? .absent
        let clientAuthor = state.withLock { $0.host }?.resyncAuthor
        let outcome = state.withLock { state in
            let resyncAuthor: UpdateAuthor = reset ?? clientAuthor ?? self
            return state.rules.tookSnapshot(
                remote, version: entry?.version ?? 0, author: reset ?? author ?? resyncAuthor,
                resyncAuthor: resyncAuthor, generation: generation)
        }
        guard let outcome else { return }
        if let failure = outcome.undecodable { report(undecodable(failure)) }
        if outcome.show != nil { reconcileIfQuiet() }
    }

    func applyEvent(_ event: Event, author: Author, generation: Int) {
        defer { publishStatus() }
        let remote: MirrorState<Value, UpdateAuthor>.Remote
        let version: Int64
        switch event {
        case .update(_, _, let new, let eventVersion, _, _, _):
            remote = decode(new)
            version = eventVersion
        case .delete(_, _, let eventVersion, _, _, _):
            remote = .absent
            version = eventVersion
        case .shutdown:
            return
        }
        let outcome = state.withLock {
            $0.rules.received(remote, version: version, author: author, generation: generation)
        }
        guard let outcome else { return }
        if let failure = outcome.undecodable { report(undecodable(failure)) }
        guard let (value, author) = outcome.show else { return }
        let writeCount = outcome.localWriteCount
        deliveryQueue.async { [self] in
            guard state.withLock({ $0.rules.isStillQuiet(after: writeCount) }) else { return }
            variable.set(value, as: author)
        }
    }

    /// Sets the `Var` to the server's value, on the delivery queue, unless a
    /// local write is unsent or in flight by then.
    private func reconcileIfQuiet() {
        deliveryQueue.async { [self] in
            guard let (value, author) = state.withLock({ $0.rules.shown() }) else { return }
            variable.set(value, as: author)
        }
    }

    /// Sets ``status`` to the mirror's status as it is when the block runs on
    /// the delivery queue, after the value changes queued before it.
    private func publishStatus() {
        deliveryQueue.async { [self] in
            status.value = state.withLock { $0.status }
        }
    }

    // MARK: Decoding and errors

    private func decode(_ value: JSONValue) -> MirrorState<Value, UpdateAuthor>.Remote {
        do {
            return .value(try value.decode(Value.self))
        } catch {
            return .undecodable(detail: String(describing: error))
        }
    }

    private func undecodable(_ failure: (version: Int64, detail: String)) -> ClientError {
        .undecodableValue(
            key: key, version: failure.version, type: String(describing: Value.self), detail: failure.detail)
    }

    private func report(_ error: ClientError) {
        state.withLock { $0.host }?.report(error)
    }
}
