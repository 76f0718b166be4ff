import Dispatch
import Foundation
import Observatory
import ObservatoryWire

/// A connection to an `observatoryd` server that mirrors remote shared values
/// as local `Var`s, and offers every protocol request as an `async` call.
///
///     let client = try await ObservatoryClient.connect(ClientConfiguration(name: "sky-watcher"))
///     let color = client.variable("sky.color", default: "blue")
///     watcher.observe(color) { update, author in
///         if let peer = author as? Peer { print("\(update.old) → \(update.new) by \(peer.name)") }
///     }
///     color <- "red"                       // sent to the server
///     try await client.set("sky.cloudy", true)
///
/// The client connects at once and keeps connecting: after a failure or a
/// broken connection it waits (``ReconnectBackoff``) and tries again. After
/// every (re)connect it says hello and resyncs all mirrors from fresh
/// snapshots; ``connectionState`` announces each step. An idle connection is
/// pinged, and a ping without reply counts as a dead connection.
///
/// Writes while disconnected: a mirror keeps its latest local value and sends
/// it after the next resync, so the offline write wins over what others wrote
/// meanwhile. `async` requests never wait for a connection: made while the
/// client is not in sync, they fail at once with ``ClientError/notConnected(_:)``.
///
/// Lifetime: the client runs (and reconnects) until ``close()``; call it when
/// you are done. Mirrors live as long as their client.
///
/// Thread safety: every method may be called from any thread. The client's
/// state lives in a `Locked` box; socket reads run on a reader thread; mirrors,
/// ``connectionState`` and ``errors`` deliver on the configured delivery queue.
public final class ObservatoryClient: Sendable {
    struct State {
        var phase = ConnectionState.disconnected(.notStarted)
        var link: ServerLink?
        var isSynchronized = false
        var isClosed = false
        var nextEpoch = 1
        var loop: Task<Void, Never>?
        var localPeer: Peer?
        var peers: [String: Peer] = [:]
        var mirrors: [String: [any MirrorEndpoint]] = [:]
        var mirrorsAwaitingObserve: [any MirrorEndpoint] = []
        /// Mirrored keys whose `observe` was sent and not answered yet.
        var snapshotsInFlight = 0
        var mirrorsWithUnsentWrites: [ObjectIdentifier: any MirrorEndpoint] = [:]
        var watchers: [Int: Watcher] = [:]
        var nextWatcherIdentifier = 1

        /// The current link, if it is synchronized and has not ended.
        var synchronizedLink: ServerLink? {
            guard isSynchronized, let link, !link.hasEnded else { return nil }
            return link
        }

        /// The one `Peer` object for a session.
        mutating func peer(session: String, name: String) -> Peer {
            if let peer = peers[session] { return peer }
            let peer = Peer(name: name, session: session)
            peers[session] = peer
            return peer
        }
    }

    /// A consumer of ``changes(of:)``.
    struct Watcher {
        let target: Target
        let continuation: AsyncStream<RemoteChange>.Continuation

        func matches(_ key: String) -> Bool {
            switch target {
            case .key(let watched): key == watched
            case .prefix(let prefix): key.hasPrefix(prefix)
            }
        }
    }

    /// Where the server is and how the client behaves.
    public let configuration: ClientConfiguration
    /// The connection's state; observe it to see connects, disconnects and
    /// resyncs. It changes on the delivery queue, after the updates of a resync.
    /// Read it, never set it: setting it does not change the connection.
    public let connectionState: Var<ConnectionState>
    /// Errors that no caller can catch: remote values that do not decode as a
    /// mirror's type, and mirror writes that the server refused. Sent on the
    /// delivery queue, and logged.
    public let errors: Messenger<ClientError>
    let deliveryQueue: DispatchQueue
    let logger: ClientLogger
    let state = Locked(State())

    /// Creates a client and starts connecting in the background.
    ///
    /// Use ``connect(_:timeout:)`` to wait for the first connection, or
    /// ``waitUntilSynchronized(timeout:)``.
    public init(configuration: ClientConfiguration) {
        self.configuration = configuration
        self.logger = configuration.logger
        self.connectionState = Var(ConnectionState.disconnected(.notStarted))
        self.errors = Messenger()
        self.deliveryQueue = DispatchQueue(label: "observatory.client.delivery", target: configuration.deliveryQueue)
        let loop = Task { [self] in await runConnectionLoop() }
        state.withLock { $0.loop = loop }
    }

    /// Creates a client and waits until it is connected and in sync.
    ///
    /// - Throws: ``ClientError/connectionFailed(_:)`` when the client does not
    ///   reconnect and the first attempt fails, ``ClientError/timedOut(_:)``
    ///   after `timeout`. The client is closed when this throws.
    public static func connect(_ configuration: ClientConfiguration, timeout: Duration = .seconds(10)) async throws(ClientError) -> ObservatoryClient {
        let client = ObservatoryClient(configuration: configuration)
        do {
            try await client.waitUntilSynchronized(timeout: timeout)
        } catch {
            client.close()
            throw error
        }
        return client
    }

    /// The state of the connection right now (``connectionState`` follows it on the delivery queue).
    public var currentState: ConnectionState { state.withLock { $0.phase } }

    /// The `Peer` of this client's own session while connected: the author the
    /// server stamps on this client's changes.
    public var localPeer: Peer? { state.withLock { $0.localPeer } }

    /// Waits until the client is connected and every mirror is in sync: the
    /// snapshots are in, and their values have been delivered to the mirrors.
    ///
    /// - Throws: ``ClientError/closed``; ``ClientError/connectionFailed(_:)``
    ///   when the connection failed and the client does not reconnect;
    ///   ``ClientError/timedOut(_:)`` after `timeout`.
    public func waitUntilSynchronized(timeout: Duration = .seconds(10)) async throws(ClientError) {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (phase, isClosed, isSynchronized) = state.withLock { ($0.phase, $0.isClosed, $0.synchronizedLink != nil && $0.mirrorsAwaitingObserve.isEmpty && $0.snapshotsInFlight == 0) }
            if isClosed { throw .closed }
            if isSynchronized && phase == .connected {
                // Let the delivery queue apply what the snapshots brought.
                await withCheckedContinuation { continuation in deliveryQueue.async { continuation.resume() } }
                return
            }
            if case .disconnected(let reason) = phase, reason != .notStarted, !configuration.reconnects {
                throw .connectionFailed(reason.description)
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        throw .timedOut("not in sync with \(configuration.host):\(configuration.port) after \(timeout)")
    }

    /// Closes the connection and stops reconnecting. Waiting requests fail with
    /// ``ClientError/connectionLost(_:)``, streams of ``changes(of:)`` finish.
    public func close() {
        let (link, loop, watchers) = state.withLock { state in
            state.isClosed = true
            state.isSynchronized = false
            state.phase = .disconnected(.closed)
            let watchers = Array(state.watchers.values)
            state.watchers.removeAll()
            return (state.link, state.loop, watchers)
        }
        loop?.cancel()
        link?.end(.closed)
        for watcher in watchers { watcher.continuation.finish() }
        publish(.disconnected(.closed))
    }

    // MARK: Connection loop

    private var isClosed: Bool { state.withLock { $0.isClosed } }

    /// Connect, serve until the connection ends, wait, repeat.
    private func runConnectionLoop() async {
        var failedAttempts = 0
        while !isClosed {
            setPhase(.connecting)
            let reason: DisconnectReason
            switch await openLink() {
            case .success(let link):
                failedAttempts = 0
                reason = await serve(link)
            case .failure(let failure):
                reason = failure
            }
            if isClosed { return }
            setPhase(.disconnected(reason))
            guard configuration.reconnects else { return finishWatchers() }
            let delay = configuration.backoff.delay(forAttempt: failedAttempts, random: configuration.random)
            failedAttempts += 1
            logger.log(.info, "reconnecting to \(configuration.host):\(configuration.port) in \(delay)")
            try? await Task.sleep(for: delay)
        }
    }

    /// Ends every stream of ``changes(of:)``: the client stopped for good.
    private func finishWatchers() {
        let watchers = state.withLock { state in
            defer { state.watchers.removeAll() }
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.continuation.finish() }
    }

    /// Opens the socket and says hello.
    private func openLink() async -> Result<ServerLink, DisconnectReason> {
        let configuration = configuration
        // A blocking connect (up to `connectTimeout`) runs on a thread of its
        // own, never on a cooperative or Dispatch worker thread.
        // The result crosses from the connect thread to this task in a lock as
        // well as through the continuation: ThreadSanitizer sees the lock's
        // ordering, not the continuation's, and would report the socket's
        // first use here as a race.
        let handoff = Locked(Result<SocketConnection, SocketError>.failure(
            SocketError(code: .closed, errorNumber: 0, operation: "connect to \(configuration.host):\(configuration.port)")
        ))
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                let result = Result { () throws(SocketError) in
                    try SocketConnection.connect(
                        host: configuration.host,
                        port: configuration.port,
                        timeout: configuration.connectTimeout,
                        sendTimeout: configuration.sendTimeout
                    )
                }
                handoff.withLock { $0 = result }
                continuation.resume()
            }
            thread.name = "observatory-client-connect"
            thread.start()
        }
        let connected = handoff.withLock { $0 }
        let socket: SocketConnection
        switch connected {
        case .success(let opened): socket = opened
        case .failure(let error): return .failure(.connectionFailed(error.description))
        }
        let link: ServerLink? = state.withLock { state in
            guard !state.isClosed else { return nil }
            let link = ServerLink(
                socket: socket,
                epoch: state.nextEpoch,
                maxFrameBytes: configuration.maxFrameBytes,
                onEvent: { [weak self] event, link in self?.handle(event, from: link) },
                onEnd: { [weak self] _, link in self?.linkEnded(link) }
            )
            state.nextEpoch += 1
            state.link = link
            // Session ids are unique only within one run of the server, and a
            // reconnect may reach a restarted server: start a fresh table.
            state.peers.removeAll()
            return link
        }
        guard let link else {
            socket.close()
            return .failure(.closed)
        }
        link.start()
        return await sayHello(on: link)
    }

    private func sayHello(on link: ServerLink) async -> Result<ServerLink, DisconnectReason> {
        let hello = Operation.hello(name: configuration.name, token: configuration.token, protocolVersion: 1)
        let reply: ReceivedReply
        switch await link.request(hello) {
        case .success(let received): reply = received
        case .failure(.connectionLost(let reason)): return .failure(reason)
        case .failure(let error): return .failure(.protocolError(error.description))
        }
        let failure: DisconnectReason
        do throws(WireError) {
            guard case .hello(_, _, let session, let author, _, _) = try reply.payload(for: .hello) else {
                throw WireError(code: .badFrame, message: "hello answered with another reply")
            }
            let peer = state.withLock { state in
                let peer = state.peer(session: session, name: author)
                state.localPeer = peer
                return peer
            }
            logger.log(.info, "connected to \(configuration.host):\(configuration.port) as \(peer)")
            return .success(link)
        } catch {
            failure = error.code == .badFrame ? .protocolError(error.message) : .rejected("\(error.code): \(error.message)")
        }
        link.end(failure)
        _ = await link.waitUntilEnded()
        return .failure(failure)
    }

    /// Resyncs, announces `connected`, keeps the link alive, and returns why it ended.
    private func serve(_ link: ServerLink) async -> DisconnectReason {
        let (mirrors, targets) = state.withLock { state in
            state.mirrorsAwaitingObserve.removeAll()
            return (state.mirrors, Set(state.watchers.values.map(\.target)))
        }
        await observe(mirrors, watcherTargets: targets, on: link)
        let ready: (unsent: [any MirrorEndpoint], awaiting: [any MirrorEndpoint])? = state.withLock { state in
            guard state.link === link, !link.hasEnded, !state.isClosed else { return nil }
            state.isSynchronized = true
            defer {
                state.mirrorsWithUnsentWrites.removeAll()
                state.mirrorsAwaitingObserve.removeAll()
            }
            return (Array(state.mirrorsWithUnsentWrites.values), state.mirrorsAwaitingObserve)
        }
        if let ready {
            logger.log(.debug, "resynced \(mirrors.count) mirrored keys and \(targets.count) watches")
            setPhase(.connected)
            for mirror in ready.unsent { mirror.sendUnsentWrite() }
            sendObserves(Dictionary(grouping: ready.awaiting, by: \.key), watcherTargets: [], on: link)
        }
        let liveness = Task { [configuration] in
            await link.keepAlive(interval: configuration.pingInterval, timeout: configuration.pingTimeout)
        }
        let reason = await link.waitUntilEnded()
        liveness.cancel()
        logger.log(.info, "disconnected from \(configuration.host):\(configuration.port): \(reason)")
        return reason
    }

    /// The link ended: stop sending on it. Runs before its waiting requests fail.
    private func linkEnded(_ link: ServerLink) {
        state.withLock { state in
            guard state.link === link else { return }
            state.link = nil
            state.isSynchronized = false
            state.localPeer = nil
        }
    }

    // MARK: Observing

    /// Observes every key of `mirrors` and every watcher target on `link`,
    /// and returns when all replies are in.
    func observe(_ mirrors: [String: [any MirrorEndpoint]], watcherTargets: Set<Target>, on link: ServerLink) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            sendObserves(mirrors, watcherTargets: watcherTargets, on: link) { continuation.resume() }
        }
    }

    /// Sends `observe` for every key of `mirrors` and every watcher target;
    /// applies each snapshot to its mirrors as its reply arrives (on the reader
    /// thread, so before any later event), and calls `done` after the last reply.
    func sendObserves(
        _ mirrors: [String: [any MirrorEndpoint]],
        watcherTargets: Set<Target>,
        on link: ServerLink,
        done: @escaping @Sendable () -> Void = {}
    ) {
        let total = mirrors.count + watcherTargets.count
        guard total > 0 else { return done() }
        let remaining = Locked(total)
        state.withLock { $0.snapshotsInFlight += mirrors.count }
        let countDown: @Sendable () -> Void = {
            let isLast = remaining.withLock { count in
                count -= 1
                return count == 0
            }
            if isLast { done() }
        }
        for (key, keyMirrors) in mirrors {
            link.send(.observe(.key(key))) { [weak self] result in
                self?.applySnapshot(result, key: key, to: keyMirrors, epoch: link.epoch)
                self?.state.withLock { $0.snapshotsInFlight -= 1 }
                countDown()
            }
        }
        for target in watcherTargets {
            link.send(.observe(target)) { [weak self] result in
                if case .success(let reply) = result, case .failure(let error) = reply.outcome {
                    self?.report(.server(error))
                }
                countDown()
            }
        }
    }

    private func applySnapshot(_ result: Result<ReceivedReply, ClientError>, key: String, to mirrors: [any MirrorEndpoint], epoch: Int) {
        guard case .success(let reply) = result else { return }
        do {
            guard case .observe(let values, _, _) = try reply.payload(for: .observe) else { return }
            let entry = values.first { $0.key == key }
            let author = entry.map { entry in
                state.withLock { $0.peer(session: entry.session, name: entry.author) }
            }
            for mirror in mirrors {
                mirror.applySnapshot(entry, author: author, epoch: epoch)
            }
        } catch {
            report(.server(error))
        }
    }

    // MARK: Events

    /// Routes an event to the mirrors of its key and the matching watchers.
    private func handle(_ event: Event, from link: ServerLink) {
        let key: String
        let session: String
        let name: String
        let old: JSONValue?
        let new: JSONValue?
        let version: Int64
        switch event {
        case .update(let eventKey, let eventOld, let eventNew, let eventVersion, let author, let eventSession, _):
            (key, old, new, version, name, session) = (eventKey, eventOld, eventNew, eventVersion, author, eventSession)
        case .delete(let eventKey, let eventOld, let eventVersion, let author, let eventSession, _):
            (key, old, new, version, name, session) = (eventKey, eventOld, nil, eventVersion, author, eventSession)
        case .shutdown:
            return
        }
        let (peer, mirrors, watchers) = state.withLock { state in
            (
                state.peer(session: session, name: name),
                state.mirrors[key] ?? [],
                state.watchers.values.filter { $0.matches(key) }
            )
        }
        for mirror in mirrors {
            mirror.applyEvent(event, author: peer, epoch: link.epoch)
        }
        let change = RemoteChange(key: key, old: old, new: new, version: version, author: peer, event: event)
        for watcher in watchers {
            watcher.continuation.yield(change)
        }
    }

    // MARK: Publishing

    private func setPhase(_ phase: ConnectionState) {
        let changed = state.withLock { state in
            guard !state.isClosed, state.phase != phase else { return false }
            state.phase = phase
            return true
        }
        guard changed else { return }
        logger.log(.debug, "connection state: \(phase)")
        publish(phase)
    }

    private func publish(_ phase: ConnectionState) {
        deliveryQueue.async { [connectionState] in
            connectionState.value = phase
        }
    }

    /// Logs an error and sends it to ``errors`` on the delivery queue.
    func report(_ error: ClientError) {
        logger.log(.warning, error.description)
        deliveryQueue.async { [errors] in
            errors.send(error)
        }
    }
}
