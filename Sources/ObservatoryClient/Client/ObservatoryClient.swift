import Dispatch
import Foundation
import Observatory
import ObservatoryLogging
import ObservatorySockets
import ObservatoryWire

/// A connection to an `observatoryd` server that mirrors remote shared values
/// as local `Var`s, and offers every protocol request as an `async` call.
///
///     let client = try await ObservatoryClient.connect(ClientConfiguration(name: "sky-watcher"))
///     let color = client.variable("sky.color", default: "blue")
///     watcher.observe(color) { update, author in
///         if let peer = author as? Author { print("\(update.old) → \(update.new) by \(peer.name)") }
///     }
///     color <- "red"                       // sent to the server
///     try await client.set("sky.cloudy", true)
///
/// The client connects at once and keeps connecting: after a failure or a
/// broken connection it waits (``ReconnectBackoff``) and tries again. After
/// every reconnect it says hello and resumes every mirror and stream of
/// ``changes(of:)`` from the last revision it saw: the server replays the
/// changes it missed, in order, with their real authors. When the server
/// cannot (another epoch, or more changes than its history holds), the mirrors
/// take fresh snapshots authored by a ``Reset``, and ``connectionState`` passes
/// through ``ConnectionState/reset(_:)``. An idle connection is pinged, and a
/// ping without reply counts as a dead connection.
///
/// Writes while disconnected: a mirror keeps its latest local value and sends
/// it after the next resync, so the offline write wins over what others wrote
/// meanwhile. `async` requests never wait for a connection: made while the
/// client is not in sync, they fail at once with ``ClientError/notConnected(_:)``.
/// Writes carry a `requestId`: a write whose reply a broken connection took is
/// sent again after the reconnect, and the server applies it once.
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
        var nextGeneration = 1
        /// The epoch of the server this client last said hello to.
        var serverEpoch = ""
        /// How far each observed target has seen the server's changes.
        var tracker = ResumeTracker()
        /// Set during a resync when some target could not resume.
        var reset: Reset?
        /// Callers of `waitUntilSynchronized` waiting for the state to change, and
        /// how many changes there have been (to tell a change that came first).
        var stateWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var expiredWaiters: Set<Int> = []
        var nextWaiter = 0
        var stateChanges = 0
        var loop: Task<Void, Never>?
        var localAuthor: Author?
        var peers: [String: Author] = [:]
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

        /// The link, once every mirror has its snapshot or has resumed.
        var settledLink: ServerLink? {
            guard mirrorsAwaitingObserve.isEmpty, snapshotsInFlight == 0 else { return nil }
            return synchronizedLink
        }

        /// The one `Author` object for a session.
        mutating func peer(session: String, name: String) -> Author {
            if let peer = peers[session] { return peer }
            let peer = Author(name: name, session: session)
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
            case .key(let watched): key.utf8.elementsEqual(watched.utf8)
            case .prefix(let prefix): key.utf8.starts(with: prefix.utf8)
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
    let logger: Logger
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
    public static func connect(_ configuration: ClientConfiguration, timeout: Duration = .seconds(10))
        async throws(ClientError) -> ObservatoryClient
    {
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

    /// The `Author` of this client's own session while connected: the author the
    /// server stamps on this client's changes.
    public var localAuthor: Author? { state.withLock { $0.localAuthor } }

    /// Waits until the client is connected, every mirror is in sync, and every
    /// change the server had made when this was called has reached the mirrors
    /// and streams.
    ///
    /// It waits for the connection's state to change (no polling), then sends a
    /// `ping`: the server answers it after every event up to the revision in its
    /// reply (PROTOCOL.md, "Progress"), and the mirrors have applied those events
    /// once the delivery queue has run.
    ///
    /// - Throws: ``ClientError/closed``; ``ClientError/connectionFailed(_:)``
    ///   when the connection failed and the client does not reconnect;
    ///   ``ClientError/timedOut(_:)`` after `timeout`.
    public func waitUntilSynchronized(timeout: Duration = .seconds(10)) async throws(ClientError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (phase, isClosed, link, changes) = state.withLock {
                ($0.phase, $0.isClosed, $0.settledLink, $0.stateChanges)
            }
            if isClosed { throw .closed }
            if let link, phase == .connected, await confirmProgress(on: link) {
                await withCheckedContinuation { continuation in deliveryQueue.async { continuation.resume() } }
                return
            }
            if case .disconnected(let reason) = phase, reason != .notStarted, !configuration.reconnects {
                throw .connectionFailed(reason.description)
            }
            guard ContinuousClock.now < deadline else {
                throw .timedOut("not in sync with \(configuration.host):\(configuration.port) after \(timeout)")
            }
            await waitForStateChange(after: changes, until: deadline)
        }
    }

    /// Pings on `link` and records the reply's revision as every target's progress;
    /// false if the link ended first.
    private func confirmProgress(on link: ServerLink) async -> Bool {
        guard case .success(let reply) = await link.request(.ping),
            case .ping(let revision, _)? = try? reply.payload(for: .ping)
        else { return false }
        state.withLock { $0.tracker.progressed(to: revision, generation: link.generation) }
        return true
    }

    /// Returns once the connection's state has changed since `changes` was read, or at `deadline`.
    private func waitForStateChange(after changes: Int, until deadline: ContinuousClock.Instant) async {
        let waiter = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(until: deadline)
            self?.wake(waiter)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.stateChanges != changes || state.expiredWaiters.remove(waiter) != nil || state.isClosed {
                    return true
                }
                state.stateWaiters[waiter] = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        timer.cancel()
    }

    /// Resumes one waiter whose deadline passed.
    private func wake(_ waiter: Int) {
        let continuation = state.withLock { state in
            guard let continuation = state.stateWaiters.removeValue(forKey: waiter) else {
                state.expiredWaiters.insert(waiter)
                return nil as CheckedContinuation<Void, Never>?
            }
            return continuation
        }
        continuation?.resume()
    }

    /// Wakes every caller of `waitUntilSynchronized` to look at the state again.
    func stateChanged() {
        let waiters = state.withLock { state in
            state.stateChanges += 1
            defer { state.stateWaiters.removeAll() }
            return Array(state.stateWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
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
        stateChanged()
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
        let handoff = Locked(
            Result<SocketConnection, SocketError>.failure(
                SocketError.closed("connect to \(configuration.host):\(configuration.port)")
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
                generation: state.nextGeneration,
                maxFrameBytes: configuration.maxFrameBytes,
                onEvent: { [weak self] event, link in self?.handle(event, from: link) },
                onEnd: { [weak self] _, link in self?.linkEnded(link) }
            )
            state.nextGeneration += 1
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
            guard case .hello(_, _, let session, let author, _, let epoch) = try reply.payload(for: .hello) else {
                throw WireError(code: .badFrame, message: "hello answered with another reply")
            }
            let peer = state.withLock { state in
                let peer = state.peer(session: session, name: author)
                state.localAuthor = peer
                state.serverEpoch = epoch
                return peer
            }
            logger.log(.info, "connected to \(configuration.host):\(configuration.port) as \(peer)")
            return .success(link)
        } catch {
            failure =
                error.code == .badFrame ? .protocolError(error.message) : .rejected("\(error.code): \(error.message)")
        }
        link.end(failure)
        _ = await link.waitUntilEnded()
        return .failure(failure)
    }

    /// Resumes (or resyncs), announces `connected`, keeps the link alive, and returns why it ended.
    private func serve(_ link: ServerLink) async -> DisconnectReason {
        let (mirrors, targets) = state.withLock { state in
            state.mirrorsAwaitingObserve.removeAll()
            state.reset = nil
            // A watched key that is also mirrored is observed once, for both:
            // a second resumed observe would replay its changes twice.
            let targets = Set(state.watchers.values.map(\.target)).filter { target in
                guard case .key(let key) = target else { return true }
                return state.mirrors[key] == nil
            }
            return (state.mirrors, targets)
        }
        await observe(mirrors, watcherTargets: targets, on: link, resuming: true)
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
            if let reset = state.withLock({ $0.reset }) {
                logger.log(.warning, "\(reset)")
                setPhase(.reset(reset.reason))
            }
            setPhase(.connected)
            for mirror in ready.unsent { mirror.sendUnsentWrite() }
            sendObserves(Dictionary(grouping: ready.awaiting, by: \.key), watcherTargets: [], on: link)
        }
        let state = self.state
        let liveness = Task { [configuration] in
            await link.keepAlive(interval: configuration.pingInterval, timeout: configuration.pingTimeout) { revision in
                state.withLock { $0.tracker.progressed(to: revision, generation: link.generation) }
            }
        }
        let reason = await link.waitUntilEnded()
        liveness.cancel()
        logger.log(.info, "disconnected from \(configuration.host):\(configuration.port): \(reason)")
        return reason
    }

    /// The link ended: stop sending on it. Runs before its waiting requests fail.
    private func linkEnded(_ link: ServerLink) {
        let mirrors = state.withLock { state -> [any MirrorEndpoint] in
            guard state.link === link else { return [] }
            state.link = nil
            state.isSynchronized = false
            state.localAuthor = nil
            return state.mirrors.values.flatMap { $0 }
        }
        for mirror in mirrors { mirror.sessionEnded() }
        stateChanged()
    }

    // MARK: Observing

    /// Observes every key of `mirrors` and every watcher target on `link`,
    /// and returns when all replies are in.
    func observe(
        _ mirrors: [String: [any MirrorEndpoint]], watcherTargets: Set<Target>, on link: ServerLink, resuming: Bool
    ) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            sendObserves(mirrors, watcherTargets: watcherTargets, on: link, resuming: resuming) {
                continuation.resume()
            }
        }
    }

    /// Sends `observe` for every key of `mirrors` and every watcher target;
    /// applies each reply as it arrives (on the reader thread, so before any
    /// later event), and calls `done` after the last reply.
    ///
    /// When `resuming`, each target that was observed before asks for the
    /// changes after the last revision it saw; a key resumes only if each of its
    /// mirrors already has a snapshot.
    func sendObserves(
        _ mirrors: [String: [any MirrorEndpoint]],
        watcherTargets: Set<Target>,
        on link: ServerLink,
        resuming: Bool = false,
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
            let target = Target.key(key)
            let canResume = resuming && keyMirrors.allSatisfy(\.hasSnapshot)
            let resumePoint = canResume ? state.withLock { $0.tracker.resumePoint(for: target) } : nil
            link.send(.observe(target, from: resumePoint)) { [weak self] result in
                self?.applyObserveReply(
                    result, target: target, mirrors: keyMirrors, link: link, resumePoint: resumePoint)
                self?.state.withLock { $0.snapshotsInFlight -= 1 }
                self?.stateChanged()
                countDown()
            }
        }
        for target in watcherTargets {
            let resumePoint = resuming ? state.withLock { $0.tracker.resumePoint(for: target) } : nil
            link.send(.observe(target, from: resumePoint)) { [weak self] result in
                self?.applyObserveReply(result, target: target, mirrors: [], link: link, resumePoint: resumePoint)
                countDown()
            }
        }
    }

    /// Takes an `observe` reply: records the target's revision, and either lets
    /// the mirrors wait for the replayed events (resumed) or gives them the
    /// snapshot, authored by a ``Reset`` when a resume was asked for and refused.
    func applyObserveReply(
        _ result: Result<ReceivedReply, ClientError>, target: Target, mirrors: [any MirrorEndpoint],
        link: ServerLink, resumePoint: ResumePoint?
    ) {
        guard case .success(let reply) = result else { return }
        do {
            guard case .observe(let values, let revision, let resumed) = try reply.payload(for: .observe) else {
                return
            }
            let reset: Reset? = state.withLock { state in
                state.tracker.observed(
                    target, revision: revision, epoch: state.serverEpoch, generation: link.generation)
                guard let resumePoint, resumed != true else { return nil }
                let reason =
                    resumePoint.epoch == state.serverEpoch
                    ? "the server no longer holds every change after revision \(resumePoint.revision)"
                    : "the server's history changed (epoch \(resumePoint.epoch ?? "?") is now \(state.serverEpoch))"
                state.reset = state.reset ?? Reset(reason: reason)
                return state.reset
            }
            if resumed == true {
                for mirror in mirrors { mirror.resume(generation: link.generation) }
                return
            }
            guard case .key(let key) = target else { return }
            let entry = values.first { $0.key == key }
            let author = entry.map { entry in
                state.withLock { $0.peer(session: entry.session, name: entry.author) }
            }
            for mirror in mirrors {
                mirror.applySnapshot(entry, author: author, reset: reset, generation: link.generation)
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
            state.tracker.saw(key: key, version: version, generation: link.generation)
            return (
                state.peer(session: session, name: name),
                state.mirrors[key] ?? [],
                state.watchers.values.filter { $0.matches(key) }
            )
        }
        for mirror in mirrors {
            mirror.applyEvent(event, author: peer, generation: link.generation)
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
        stateChanged()
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
