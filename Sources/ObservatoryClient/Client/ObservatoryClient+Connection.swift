import Observatory
import ObservatorySockets
import ObservatoryWire

/// The client's I/O thread: connect, say hello, resync, serve until the link
/// ends, wait, repeat. Every decision is the machine's (``ClientMachine/next(at:)``,
/// ``ClientMachine/check(_:at:)``); this is the I/O around it.
extension ObservatoryClient {
    var isClosed: Bool { state.withLock { $0.machine.isClosed } }

    /// Reconnects at once, for an app that comes to the foreground or sees its
    /// network change: the backoff starts over, and a client waiting out a
    /// backoff connects now.
    ///
    /// Harmless in any state: while connecting it only resets the backoff; while
    /// connected it pings the server, so that a connection the network change
    /// broke without a word is found dead within ``ClientConfiguration/pingTimeout``
    /// and replaced, and a live one stays as it is. A closed client, or one that
    /// does not reconnect and has stopped, does nothing.
    public func reconnectNow() {
        let action = state.withLock { $0.machine.reconnectNow(at: .now) }
        logger.log(.debug, "reconnect now: \(action)")
        perform(action)
    }

    /// Runs on the client's I/O thread until the client closes, or stops for
    /// good when it does not reconnect.
    func runConnectionThread(_ loop: ClientEventLoop) {
        defer { stateChanged() }
        while true {
            switch state.withLock({ $0.machine.next(at: .now) }) {
            case .connect(let index, let timeout):
                setPhase(.connecting)
                serve(configuration.endpoints[index], within: timeout, on: loop)
            case .backOff(let reason, let until):
                setPhase(.disconnected(reason))
                let next = state.withLock { configuration.endpoints[$0.machine.endpoints.current] }
                logger.log(.info, "reconnecting to \(next) in \(until - .now)")
                sleep(until: until, on: loop)
            case .wait(let until):
                sleep(until: until, on: loop)
            case .stop(let reason):
                setPhase(.disconnected(reason))
                return finishWatchers()
            case .none, .sayHello, .ping, .end, .wake, .complete:
                sleep(until: .now + policy.tickInterval, on: loop)
            }
        }
    }

    /// The machine's rules' numbers, from the configuration.
    var policy: ConnectionPolicy { ConnectionPolicy(configuration) }

    /// Sleeps until `until` or a wake-up, looking at the waiters' deadlines on the way.
    private func sleep(until: ContinuousClock.Instant, on loop: ClientEventLoop) {
        loop.sleep(until: min(until, .now + nextTurn()))
    }

    /// Carries out an action of the machine that any thread may carry out.
    func perform(_ action: ClientMachine<ServerLink>.Action) {
        switch action {
        case .ping(let link): ping(link)
        case .end(let link, let reason): link.end(reason)
        case .wake: eventLoop?.wake()
        // The connection thread carries out the rest; a reply's completion runs where the reply is.
        case .none, .connect, .sayHello, .backOff, .wait, .stop, .complete: break
        }
    }

    /// Ends every stream of ``changes(of:slow:)``: the client stopped for good.
    func finishWatchers() {
        let watchers = state.withLock { $0.machine.takeWatchers() }
        for watcher in watchers { watcher.finish() }
    }

    /// Opens a link to `endpoint` and serves it until it ends; or tells the
    /// machine why the connection failed.
    private func serve(_ endpoint: Endpoint, within timeout: Duration, on loop: ClientEventLoop) {
        switch openLink(to: endpoint, within: timeout, on: loop) {
        case .success(let (link, socket)):
            sayHello(on: link, at: endpoint)
            let reason = loop.run(link, on: socket, sendTimeout: configuration.sendTimeout) { tick(link) }
            logger.log(.info, "disconnected from \(endpoint): \(reason)")
        case .failure(let failure):
            logger.log(.info, "could not connect to \(endpoint): \(failure)")
            state.withLock { $0.machine.connectFailed(failure, at: .now) }
        }
    }

    /// Opens the socket (blocking this thread up to `timeout`) and makes the link.
    private func openLink(to endpoint: Endpoint, within timeout: Duration, on loop: ClientEventLoop)
        -> Result<(ServerLink, SocketConnection), DisconnectReason>
    {
        let socket: SocketConnection
        do throws(SocketError) {
            socket = try SocketConnection.connect(host: endpoint.host, port: endpoint.port, timeout: timeout)
        } catch {
            return .failure(.connectionFailed(error.description))
        }
        guard let generation = state.withLock({ $0.machine.reserveGeneration() }) else {
            socket.close()
            return .failure(.closed)
        }
        let link = ServerLink(
            wake: { [loop] in loop.wake() },
            generation: generation,
            maxFrameBytes: configuration.maxFrameBytes,
            onReply: { [weak self] reply, link in self?.handle(reply, from: link) },
            onEvent: { [weak self] event, link in self?.handle(event, from: link) },
            onReadEnd: { [weak self] midFrame, link in self?.readEnded(on: link, midFrame: midFrame) },
            onEnd: { [weak self] reason, link in self?.linkEnded(link, reason: reason) }
        )
        guard case .sayHello = state.withLock({ $0.machine.opened(link, generation: generation, at: .now) }) else {
            socket.close()
            return .failure(.closed)
        }
        return .success((link, socket))
    }

    /// Sends hello; once answered, resyncs, or ends the link with why it was refused.
    private func sayHello(on link: ServerLink, at endpoint: Endpoint) {
        let hello = Operation<JSONValue>.hello(name: configuration.name, token: configuration.token, protocolVersion: 1)
        send(hello, on: link) { [weak self] result in
            guard let self else { return }
            let reply: ReceivedReply
            switch result {
            case .success(let received): reply = received
            case .failure(let error) where error.code == .connectionLost: return
            case .failure(let error): return link.end(.protocolError(error.description))
            }
            do throws(WireError) {
                guard case .hello(_, _, let session, let author, _, let epoch) = try reply.payload(for: .hello) else {
                    throw WireError(code: .badFrame, message: "hello answered with another reply")
                }
                let localAuthor = state.withLock {
                    $0.machine.greeted(on: link, session: session, name: author, epoch: epoch, at: .now)
                }
                guard let localAuthor else { return }
                logger.log(.info, "connected to \(endpoint) as \(localAuthor)")
                resync(link)
            } catch {
                link.end(
                    error.code == .badFrame
                        ? .protocolError(error.message) : .rejected("\(error.code): \(error.message)"))
            }
        }
    }

    /// Resumes (or resyncs) every observation; once all are answered, announces `connected`.
    private func resync(_ link: ServerLink) {
        let (mirrors, targets) = state.withLock { $0.machine.resyncBegan() }
        sendObserves(mirrors, watcherTargets: targets, on: link, resuming: true) { [weak self] in
            guard let self, let ready = state.withLock({ $0.machine.resyncEnded(on: link, at: .now) }) else {
                return
            }
            logger.log(.debug, "resynced \(mirrors.count) mirrored keys and \(targets.count) watches")
            if let reset = ready.reset {
                logger.log(.warning, "\(reset)")
                setPhase(.reset(reset.reason))
            }
            setPhase(.connected)
            for mirror in ready.unsent { mirror.sendUnsentWrite() }
            sendKeptWrites(on: link)
            sendObserves(Dictionary(grouping: ready.awaiting, by: \.key), watcherTargets: [], on: link, resuming: true)
        }
    }

    /// A turn of the I/O thread while it serves `link`: carries out what the
    /// machine's deadlines ask (a ping, the end of an overrun phase). Returns how
    /// long the thread may wait before the next turn.
    private func tick(_ link: ServerLink) -> Duration {
        perform(state.withLock { $0.machine.check(link, at: .now) })
        return nextTurn()
    }

    /// Wakes callers of `waitUntilSynchronized` whose time is up; returns how
    /// long the I/O thread may wait before it looks at the deadlines again.
    private func nextTurn() -> Duration {
        let interval = policy.tickInterval
        guard let deadline = expireWaiters() else { return interval }
        return min(interval, max(deadline - .now, .milliseconds(1)))
    }

    /// Pings `link` for the liveness rule; the reply tells the machine the link
    /// lives, and how far its targets have seen the changes.
    private func ping(_ link: ServerLink) {
        send(.ping, on: link) { [weak self] result in
            guard case .success(let reply) = result, case .ping(let revision, _)? = try? reply.payload(for: .ping)
            else { return }
            self?.state.withLock { $0.machine.pingAnswered(revision: revision, generation: link.generation) }
        }
    }

    /// The link ended: stop sending on it, tell every mirror, then fail the
    /// requests that waited for a reply on it.
    func linkEnded(_ link: ServerLink, reason: DisconnectReason) {
        let ended = state.withLock { $0.machine.linkEnded(link, reason: reason) }
        for mirror in ended?.mirrors ?? [] { mirror.sessionEnded() }
        stateChanged()
        for completion in ended?.requests ?? [] { completion(.failure(.connectionLost(reason))) }
    }
}
