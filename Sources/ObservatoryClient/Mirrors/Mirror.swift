import Dispatch
import Observatory
import ObservatoryWire

/// Binds a local `Var<Value>` to one remote key: remote changes become
/// `Update`s authored by a ``Author``, local changes become `set` requests.
///
/// How local and remote changes are told apart: the mirror observes its own
/// `Var`. Every change it makes itself carries a `Author` (or the client, for a
/// resync without a peer) as author, and those it ignores; any other author
/// (the `Var` itself after `value =` or `<-`, or whoever `set(_:as:)` names)
/// is a local write, which it sends. So there is no echo loop.
///
/// How the mirror converges: it keeps the server's value and version as last
/// seen (snapshot, events, and the acknowledgements of its own writes), and
/// counts its writes still in flight. While writes are in flight, remote
/// changes only update that record; the `Var` shows the local value. Once no
/// write is in flight, the `Var` is set to the recorded server value. Since
/// the server orders all changes by revision and the record keeps the highest
/// version, every mirror ends on the server's value once traffic stops, and a
/// mirror's version never goes back (except when a resync finds that the
/// server lost its history, as an in-memory server does on restart). The
/// server's echo of a local write finds the `Var` already holding that value,
/// so it makes no second `Update`.
///
/// Threading: the record sits in a `Locked` box. Snapshots, events and
/// acknowledgements arrive on the connection's reader thread; every change of
/// the `Var` made by the mirror runs on the client's delivery queue, in the
/// order the server sent the changes.
final class Mirror<Value: Codable & Equatable & Sendable>: Observer, MirrorEndpoint {
    /// What the mirror last learned about the server's value.
    private enum ServerValue {
        /// No snapshot yet.
        case unknown
        /// The key does not exist; the `Var` shows the default.
        case absent(author: any AnyObject & Sendable)
        /// The key holds this value.
        case value(Value, author: any AnyObject & Sendable)
        /// The key holds a value that does not decode as `Value`; the `Var` keeps what it has.
        case undecodable
    }

    private struct State {
        weak var host: (any MirrorHost)?
        var generation = -1
        var version: Int64 = 0
        var server = ServerValue.unknown
        var writesInFlight = 0
        var hasUnsentWrite = false
        var localWriteCount = 0
        /// The `requestId` of the write that is unsent or in flight: a write
        /// whose reply a broken connection took is sent again with the same id,
        /// so the server applies it once. A new local value takes a new id.
        var requestId: String?

        /// No local write waits to be sent or acknowledged, so the `Var` may show the server's value.
        var isQuiet: Bool { writesInFlight == 0 && !hasUnsentWrite }

        /// The value and author the `Var` should show now, if it should change.
        func target(default defaultValue: Value) -> (Value, any AnyObject & Sendable)? {
            switch server {
            case .value(let value, let author): (value, author)
            case .absent(let author): (defaultValue, author)
            case .unknown, .undecodable: nil
            }
        }
    }

    let key: String
    /// The local variable that the program observes and changes.
    let variable: Var<Value>
    let receiver = Receiver()
    /// Whether local writes bind the key to the client's session (PROTOCOL.md's
    /// session-bound keys); the mirror then writes its value again after each
    /// reconnect, since the server deleted it when the old session ended.
    let ephemeral: Bool
    private let defaultValue: Value
    private let deliveryQueue: DispatchQueue
    private let state: Locked<State>

    init(key: String, defaultValue: Value, ephemeral: Bool = false, host: any MirrorHost, deliveryQueue: DispatchQueue)
    {
        self.key = key
        self.ephemeral = ephemeral
        self.defaultValue = defaultValue
        self.deliveryQueue = deliveryQueue
        self.variable = Var(defaultValue)
        var initial = State()
        initial.host = host
        self.state = Locked(initial)
        observe(variable) { [weak self] (_: Update<Value>, author: AnyAuthor) in
            self?.variableChanged(author: author)
        }
    }

    var version: Int64 { state.withLock { $0.version } }

    var hasSnapshot: Bool {
        state.withLock { state in
            if case .unknown = state.server { return false }
            return true
        }
    }

    // MARK: Local writes

    private func variableChanged(author: AnyAuthor) {
        guard let host = state.withLock({ $0.host }) else { return }
        if author is Author || author is Reset || host.isClient(author) { return }
        state.withLock { state in
            state.localWriteCount += 1
            state.hasUnsentWrite = true
            state.requestId = nil
        }
        host.requestSend(for: self)
    }

    func sessionEnded() {
        guard ephemeral else { return }
        let host: (any MirrorHost)? = state.withLock { state in
            guard state.localWriteCount > 0, !state.hasUnsentWrite else { return nil }
            state.hasUnsentWrite = true
            state.requestId = nil
            return state.host
        }
        host?.requestSend(for: self)
    }

    func sendUnsentWrite() {
        let sending: (host: any MirrorHost, requestId: String)? = state.withLock { state in
            guard state.hasUnsentWrite, let host = state.host else { return nil }
            state.hasUnsentWrite = false
            state.writesInFlight += 1
            let requestId = state.requestId ?? RequestIdentifier.make()
            state.requestId = requestId
            return (host, requestId)
        }
        guard let (host, requestId) = sending else { return }
        let value = variable.value
        let encoded: JSONValue
        do {
            encoded = try JSONValue(encoding: value)
        } catch {
            state.withLock { $0.writesInFlight -= 1 }
            host.report(.unencodableValue(key: key, detail: String(describing: error)))
            reconcileIfQuiet()
            return
        }
        let write = Operation.set(key: key, value: encoded, ifVersion: nil, ephemeral: ephemeral, requestId: requestId)
        let sent = host.sendIfSynchronized(write) { [weak self] result in
            self?.writeCompleted(value, result)
        }
        if !sent { keepUnsent(host: host) }
    }

    /// The write did not reach the server: send it after the next resync.
    private func keepUnsent(host: any MirrorHost) {
        state.withLock { state in
            state.writesInFlight -= 1
            state.hasUnsentWrite = true
        }
        host.requestSend(for: self)
    }

    private func writeCompleted(_ value: Value, _ result: Result<ReceivedReply, ClientError>) {
        guard let host = state.withLock({ $0.host }) else { return }
        switch result {
        case .failure(.connectionLost):
            keepUnsent(host: host)
        case .failure(let error):
            state.withLock { state in
                state.writesInFlight -= 1
                state.requestId = nil
            }
            host.report(error)
            reconcileIfQuiet()
        case .success(let reply):
            let acknowledgedVersion: Int64?
            do throws(WireError) {
                guard case .set(_, let version, _, _) = try reply.payload(for: .set) else {
                    throw WireError(code: .badFrame, message: "the reply to set has the fields of another op")
                }
                acknowledgedVersion = version
            } catch {
                // The server refused the write (forbidden, value_too_large, ...)
                // or answered nonsense: report it; the `Var` goes back to the
                // server's value.
                acknowledgedVersion = nil
                host.report(reply.outcome.isFailure ? .server(error) : .badReply(error.message))
            }
            let author: any AnyObject & Sendable = host.localAuthor ?? host.resyncAuthor
            state.withLock { state in
                state.writesInFlight -= 1
                if state.writesInFlight == 0 && !state.hasUnsentWrite { state.requestId = nil }
                guard let version = acknowledgedVersion, version > state.version else { return }
                state.version = version
                state.server = .value(value, author: author)
            }
            reconcileIfQuiet()
        }
    }

    // MARK: Remote changes

    func resume(generation: Int) {
        state.withLock { $0.generation = generation }
    }

    func applySnapshot(_ entry: ValueEntry?, author: Author?, reset: Reset?, generation: Int) {
        let decoded = entry.map { decode($0.value) }
        let (isQuiet, failure): (Bool, ClientError?) = state.withLock { state in
            let version = entry?.version ?? 0
            if state.generation == generation && version < state.version { return (false, nil) }
            state.generation = generation
            state.version = version
            var failure: ClientError?
            let resyncAuthor: any AnyObject & Sendable = reset ?? state.host?.resyncAuthor ?? self
            switch decoded {
            case nil:
                state.server = .absent(author: resyncAuthor)
            case .success(let value)?:
                state.server = .value(value, author: reset ?? author ?? resyncAuthor)
            case .failure(let detail)?:
                state.server = .undecodable
                failure = undecodable(version: version, detail: detail)
            }
            return (state.isQuiet, failure)
        }
        if let failure { report(failure) }
        if isQuiet { reconcileIfQuiet() }
    }

    func applyEvent(_ event: Event, author: Author, generation: Int) {
        let newValue: JSONValue?
        let version: Int64
        switch event {
        case .update(_, _, let new, let eventVersion, _, _, _):
            newValue = new
            version = eventVersion
        case .delete(_, _, let eventVersion, _, _, _):
            newValue = nil
            version = eventVersion
        case .shutdown:
            return
        }
        let decoded = newValue.map { decode($0) }
        let outcome: (target: Value?, writeCount: Int, failure: ClientError?)? = state.withLock { state in
            guard generation == state.generation, version > state.version else { return nil }
            state.version = version
            switch decoded {
            case nil:
                state.server = .absent(author: author)
                return (state.isQuiet ? defaultValue : nil, state.localWriteCount, nil)
            case .success(let value)?:
                state.server = .value(value, author: author)
                return (state.isQuiet ? value : nil, state.localWriteCount, nil)
            case .failure(let detail)?:
                state.server = .undecodable
                return (nil, state.localWriteCount, undecodable(version: version, detail: detail))
            }
        }
        guard let outcome else { return }
        if let failure = outcome.failure { report(failure) }
        guard let target = outcome.target else { return }
        deliveryQueue.async { [self] in
            let stillQuiet = state.withLock { $0.isQuiet && $0.localWriteCount == outcome.writeCount }
            guard stillQuiet else { return }
            variable.set(target, as: author)
        }
    }

    /// Sets the `Var` to the server's value, on the delivery queue, unless a
    /// local write is unsent or in flight by then.
    private func reconcileIfQuiet() {
        deliveryQueue.async { [self] in
            let target = state.withLock { state in
                state.isQuiet ? state.target(default: defaultValue) : nil
            }
            guard let (value, author) = target else { return }
            variable.set(value, as: author)
        }
    }

    // MARK: Decoding and errors

    private func decode(_ value: JSONValue) -> Result<Value, DecodeFailure> {
        do {
            return .success(try value.decode(Value.self))
        } catch {
            return .failure(DecodeFailure(detail: String(describing: error)))
        }
    }

    private struct DecodeFailure: Error {
        let detail: String
    }

    private func undecodable(version: Int64, detail: DecodeFailure) -> ClientError {
        .undecodableValue(key: key, version: version, type: String(describing: Value.self), detail: detail.detail)
    }

    private func report(_ error: ClientError) {
        state.withLock { $0.host }?.report(error)
    }
}
