import Observatory
import ObservatorySockets
import ObservatoryWire

/// The client's I/O thread: connect, say hello, resync, serve until the link
/// ends, wait, repeat. Every decision is the machine's; this is the I/O around it.
extension ObservatoryClient {
    var isClosed: Bool { state.withLock { $0.machine.isClosed } }

    /// Runs on the client's I/O thread until the client closes, or stops for
    /// good when it does not reconnect.
    func runConnectionThread(_ loop: ClientEventLoop) {
        defer { stateChanged() }
        var failedAttempts = 0
        while let index = state.withLock({ $0.machine.connecting() }) {
            let endpoint = configuration.endpoints[index]
            setPhase(.connecting)
            let reason: DisconnectReason
            switch openLink(to: endpoint, on: loop) {
            case .success(let (link, socket)):
                let greeted = Locked(false)
                sayHello(on: link, at: endpoint) { greeted.withLock { $0 = true } }
                reason = loop.run(link, on: socket, sendTimeout: configuration.sendTimeout) { tick(link) }
                logger.log(.info, "disconnected from \(endpoint): \(reason)")
                if greeted.value { failedAttempts = 0 }
            case .failure(let failure):
                state.withLock { $0.machine.connectFailed(failure) }
                reason = failure
            }
            if isClosed { return }
            // Without reconnects, the first round still tries every server once, as one attempt.
            if !configuration.reconnects && state.withLock({ $0.machine.endpoints.hasUntriedServer }) { continue }
            setPhase(.disconnected(reason))
            guard configuration.reconnects else { return finishWatchers() }
            let delay = configuration.backoff.delay(forAttempt: failedAttempts, random: configuration.random)
            failedAttempts += 1
            let next = state.withLock { configuration.endpoints[$0.machine.endpoints.current] }
            logger.log(.info, "reconnecting to \(next) in \(delay)")
            let end = ContinuousClock.now + delay
            while !isClosed, ContinuousClock.now < end {
                loop.sleep(until: min(end, ContinuousClock.now + tick(nil)))
            }
        }
    }

    /// Ends every stream of ``changes(of:slow:)``: the client stopped for good.
    func finishWatchers() {
        let watchers = state.withLock { $0.machine.takeWatchers() }
        for watcher in watchers { watcher.continuation.finish() }
    }

    /// Opens the socket (blocking this thread up to the connect timeout) and makes the link.
    private func openLink(to endpoint: Endpoint, on loop: ClientEventLoop)
        -> Result<(ServerLink, SocketConnection), DisconnectReason>
    {
        let socket: SocketConnection
        do throws(SocketError) {
            socket = try SocketConnection.connect(
                host: endpoint.host, port: endpoint.port, timeout: configuration.connectTimeout)
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
            onEvent: { [weak self] event, link in self?.handle(event, from: link) },
            onEnd: { [weak self] reason, link in self?.linkEnded(link, reason: reason) }
        )
        guard state.withLock({ $0.machine.opened(link, generation: generation) }) else {
            socket.close()
            return .failure(.closed)
        }
        return .success((link, socket))
    }

    /// Sends hello; once answered, calls `greeted` and resyncs, or ends the link with why it was refused.
    private func sayHello(on link: ServerLink, at endpoint: Endpoint, greeted: @escaping @Sendable () -> Void) {
        let hello = Operation.hello(name: configuration.name, token: configuration.token, protocolVersion: 1)
        link.send(hello) { [weak self] result in
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
                let peer = state.withLock { $0.machine.greeted(session: session, name: author, epoch: epoch) }
                logger.log(.info, "connected to \(endpoint) as \(peer)")
                greeted()
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
            guard let self, let ready = state.withLock({ $0.machine.resyncEnded(on: link) }) else { return }
            logger.log(.debug, "resynced \(mirrors.count) mirrored keys and \(targets.count) watches")
            if let reset = ready.reset {
                logger.log(.warning, "\(reset)")
                setPhase(.reset(reset.reason))
            }
            setPhase(.connected)
            for mirror in ready.unsent { mirror.sendUnsentWrite() }
            sendKeptWrites(on: link)
            sendObserves(Dictionary(grouping: ready.awaiting, by: \.key), watcherTargets: [], on: link)
        }
    }

    /// The I/O thread's timers, on every turn: pings on an idle synchronized
    /// link, and wakes callers of `waitUntilSynchronized` whose time is up.
    /// Returns how long the thread may wait before the next turn.
    private func tick(_ link: ServerLink?) -> Duration {
        if let link, state.withLock({ $0.machine.synchronizedLink === link }) {
            let state = self.state
            link.checkLiveness(interval: configuration.pingInterval, timeout: configuration.pingTimeout) { revision in
                state.withLock { $0.machine.progressed(to: revision, generation: link.generation) }
            }
        }
        let liveness = max(min(configuration.pingInterval, configuration.pingTimeout) / 4, .milliseconds(5))
        guard let deadline = expireWaiters() else { return liveness }
        return min(liveness, max(deadline - ContinuousClock.now, .milliseconds(1)))
    }

    /// The link ended: stop sending on it. Runs before its waiting requests fail.
    func linkEnded(_ link: ServerLink, reason: DisconnectReason) {
        let mirrors = state.withLock { $0.machine.linkEnded(link, reason: reason) } ?? []
        for mirror in mirrors { mirror.sessionEnded() }
        stateChanged()
    }
}
