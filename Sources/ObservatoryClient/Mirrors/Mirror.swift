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
    /// Whether local writes bind the key to the client's session (docs/protocol.md's
    /// session-bound keys); the mirror then writes its value again after each
    /// reconnect, since the server deleted it when the old session ended.
    let sessionBound: Bool
    /// The seconds after each local write that the key expires, for an expiring mirror.
    let ttl: Int64?
    private let deliveryQueue: DispatchQueue
    private let state: Locked<State>
    /// The client's offline store, when it keeps one and the key is not session-bound.
    private let offline: OfflinePersistence?

    /// A mirror of `key`; with an `offline` store that kept the key, it starts
    /// from the kept value and unacknowledged write (see ``hasRestoredWrite``).
    init(
        key: String, defaultValue: Value, sessionBound: Bool = false, ttl: Int64? = nil, host: any MirrorHost,
        deliveryQueue: DispatchQueue, offline: OfflinePersistence? = nil, onConflict policy: ConflictPolicy = .localWins
    ) {
        self.key = key
        self.sessionBound = sessionBound
        self.ttl = ttl
        self.deliveryQueue = deliveryQueue
        // A write kept offline is sent again later, when a ttl would no longer mean what it meant.
        self.offline = sessionBound || ttl != nil ? nil : offline
        var rules = MirrorState<Value, UpdateAuthor>(defaultValue: defaultValue)
        // A session-bound mirror writes its value again after each reconnect (its key
        // was deleted), so it cannot expect a version: the last writer wins.
        rules.serverWins = policy == .serverWins && !sessionBound
        if let entry = self.offline?.entry(for: key) {
            let resyncAuthor = host.resyncAuthor
            rules.restore(entry) { name, session in
                guard let name, let session else { return resyncAuthor }
                return Author(name: name, session: session)
            }
        }
        self.variable = Var(rules.localValue ?? rules.shown()?.value ?? defaultValue)
        self.state = Locked(State(host: host, rules: rules))
        observe(variable) { [weak self] (update: Update<Value>, author: AnyAuthor) in
            self?.variableChanged(to: update.new, author: author)
        }
    }

    var version: Int64 { state.withLock { $0.rules.version } }

    var hasSnapshot: Bool { state.withLock { $0.rules.hasSnapshot } }

    /// Whether the mirror started with a write the offline store kept, to be sent after the first resync.
    var hasRestoredWrite: Bool { state.withLock { $0.rules.hasUnsentWrite } }

    // MARK: Local writes

    /// A change of the `Var` is sent when the echo filter says the program made
    /// it (``ClientMachine/origin(ofChangeBy:client:)``), never when the mirror did.
    private func variableChanged(to value: Value, author: AnyAuthor) {
        defer { publishStatus() }
        guard let host = state.withLock({ $0.host }) else { return }
        guard host.origin(ofChangeBy: author) == .program else { return }
        if offline != nil {
            // The offline store keeps the write under the id it will be sent with.
            state.withLock { $0.rules.wroteLocally(value, requestId: RequestIdentifier.make()) }
            keep(durably: true)
        } else {
            state.withLock { $0.rules.wroteLocally(value) }
        }
        host.requestSend(for: self)
    }

    func sessionEnded() {
        defer { publishStatus() }
        state.withLock { $0.hasHeardFromServer = false }
        let host: (any MirrorHost)? = state.withLock { state in
            state.rules.sessionEnded(sessionBound: sessionBound) ? state.host : nil
        }
        host?.requestSend(for: self)
    }

    func sendUnsentWrite() {
        defer { publishStatus() }
        let sending: (host: any MirrorHost, requestId: String, value: Value?, ifVersion: Int64?)? = state.withLock {
            state in
            guard let host = state.host, let requestId = state.rules.beginSend(makeIdentifier: RequestIdentifier.make)
            else { return nil }
            return (host, requestId, state.rules.localValue, state.rules.writeCondition)
        }
        guard let (host, requestId, localValue, ifVersion) = sending else { return }
        // The value of the write, not the `Var`'s: a delivery decided before the
        // write may have set the `Var` since. (A session-bound mirror writing
        // again after a reconnect sends what the `Var` shows.)
        let value = localValue ?? variable.value
        let encoded: JSONValue
        do {
            encoded = try JSONValue(encoding: value)
        } catch {
            state.withLock { $0.rules.sendAbandoned() }
            host.report(.unencodableValue(key: key, detail: String(describing: error)))
            reconcileIfQuiet()
            return
        }
        let write = Operation<JSONValue>.set(
            key: key, value: encoded, ifVersion: ifVersion, sessionBound: sessionBound, requestId: requestId, ttl: ttl)
        let sent = host.sendIfSynchronized(write) { [weak self] result in
            self?.writeCompleted(value, ifVersion: ifVersion, result)
        }
        if !sent {
            state.withLock { $0.rules.sendDidNotHappen() }
            host.requestSend(for: self)
        }
    }

    private func writeCompleted(_ value: Value, ifVersion: Int64?, _ result: Result<ReceivedReply, ClientError>) {
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
                if received.outcome.isFailure && error.code == .conflict && ifVersion != nil {
                    // `serverWins`: a change by someone else came first; it stays, and a conflict report says so.
                    reply = .conflicted
                } else {
                    // The server refused the write (forbidden, value_too_large, ...)
                    // or answered nonsense: report it; the `Var` goes back to the
                    // server's value.
                    host.report(received.outcome.isFailure ? .server(error) : .badReply(error.message))
                    reply = .refused
                }
            }
        }
        let author: UpdateAuthor = host.localAuthor ?? host.resyncAuthor
        let sendAgain = state.withLock { $0.rules.writeReplied(reply, value: value, author: author) }
        keep(durably: false)
        reportConflict()
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
        keep(durably: false)
        reportConflict()
        if let failure = outcome.undecodable { report(undecodable(failure)) }
        if let delivery = outcome.show { carryOut(delivery) }
    }

    func applyEvent(_ event: Event, author: Author, generation: Int) -> MirrorDelivery {
        let remote: MirrorState<Value, UpdateAuthor>.Remote
        let version: Int64
        switch event {
        case .update(_, _, let new, let eventVersion, _, _, _, _):
            remote = decode(new)
            version = eventVersion
        case .delete(_, _, let eventVersion, _, _, _):
            remote = .absent
            version = eventVersion
        case .shutdown:
            return .nothing
        }
        let outcome = state.withLock {
            $0.rules.received(remote, version: version, author: author, generation: generation)
        }
        if outcome != nil {
            keep(durably: false)
            reportConflict()
        }
        if let failure = outcome?.undecodable { report(undecodable(failure)) }
        let show = outcome?.show
        return MirrorDelivery(
            store: { [self] group in
                guard let show, state.withLock({ $0.rules.deliver(show) }) else { return }
                group.set(variable, to: show.value, as: show.author)
            },
            finish: { [self] in status.value = state.withLock { $0.status } })
    }

    /// Reports the conflict the rules settled, if any: the changes by other
    /// sessions (this session's own are no conflict), with the value written.
    private func reportConflict() {
        guard let conflict = state.withLock({ $0.rules.takeConflict() }), let host = state.withLock({ $0.host })
        else { return }
        let own = host.localAuthor
        let changes = conflict.replaced.compactMap { change -> ConflictReport.Change? in
            guard let author = change.author as? Author, author !== own else { return nil }
            return ConflictReport.Change(
                old: change.old.flatMap { try? JSONValue(encoding: $0) },
                new: change.new.flatMap { try? JSONValue(encoding: $0) }, version: change.version, author: author)
        }
        guard !changes.isEmpty else { return }
        host.reportConflict(
            ConflictReport(
                key: key, written: conflict.written.flatMap { try? JSONValue(encoding: $0) } ?? .null,
                replaced: changes, resolution: conflict.acknowledged.map { .localWrite(version: $0) } ?? .serverValue))
    }

    /// Records the mirror's state in the offline store, if the client keeps
    /// one: saved before this returns when `durably` (a local write), else soon.
    private func keep(durably: Bool) {
        guard let offline else { return }
        let resumePoint = state.withLock { $0.host }?.resumePoint(forKey: key)
        state.withLock { state in
            let entry = state.rules.offlineEntry(key: key, resumePoint: resumePoint) { author in
                (author as? Author).map { ($0.name, $0.session) }
            }
            // Recorded under the mirror's lock, so entries reach the store in the order the rules changed.
            if let entry { offline.record(entry) }
        }
        if durably { offline.saveNow() } else { offline.saveSoon() }
    }

    /// Sets the `Var` to the server's value as it is now, on the delivery
    /// queue, if the mirror is quiet now and still is then.
    private func reconcileIfQuiet() {
        guard let delivery = state.withLock({ $0.rules.shown() }) else { return }
        carryOut(delivery)
    }

    /// Sets the `Var` to what `delivery` fixed, on the delivery queue, unless
    /// the rules refuse it by then (a local write came, or a newer delivery was
    /// carried out: see ``MirrorState/deliver(_:)``).
    private func carryOut(_ delivery: MirrorState<Value, UpdateAuthor>.Delivery) {
        deliveryQueue.async { [self] in
            guard state.withLock({ $0.rules.deliver(delivery) }) else { return }
            variable.set(delivery.value, as: delivery.author)
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
