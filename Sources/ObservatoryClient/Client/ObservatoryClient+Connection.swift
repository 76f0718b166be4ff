import Foundation
import Observatory
import ObservatorySockets
import ObservatoryWire

/// The connection loop: connect, say hello, resync, serve until the link ends,
/// wait, repeat. Every decision is the machine's; this is the I/O around it.
extension ObservatoryClient {
    // MARK: Connection loop

    var isClosed: Bool { state.withLock { $0.machine.isClosed } }

    /// Connect, serve until the connection ends, wait, repeat.
    func runConnectionLoop() async {
        var failedAttempts = 0
        while !isClosed {
            state.withLock { $0.machine.connecting() }
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
    func finishWatchers() {
        let watchers = state.withLock { $0.machine.takeWatchers() }
        for watcher in watchers { watcher.continuation.finish() }
    }

    /// Opens the socket and says hello.
    func openLink() async -> Result<ServerLink, DisconnectReason> {
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
            state.machine.opened { generation in
                ServerLink(
                    socket: socket,
                    generation: generation,
                    maxFrameBytes: configuration.maxFrameBytes,
                    onEvent: { [weak self] event, link in self?.handle(event, from: link) },
                    onEnd: { [weak self] reason, link in self?.linkEnded(link, reason: reason) }
                )
            }
        }
        guard let link else {
            socket.close()
            return .failure(.closed)
        }
        link.start()
        return await sayHello(on: link)
    }

    func sayHello(on link: ServerLink) async -> Result<ServerLink, DisconnectReason> {
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
            let peer = state.withLock { $0.machine.greeted(session: session, name: author, epoch: epoch) }
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
    func serve(_ link: ServerLink) async -> DisconnectReason {
        let (mirrors, targets) = state.withLock { $0.machine.resyncBegan() }
        await observe(mirrors, watcherTargets: targets, on: link, resuming: true)
        if let ready = state.withLock({ $0.machine.resyncEnded(on: link) }) {
            logger.log(.debug, "resynced \(mirrors.count) mirrored keys and \(targets.count) watches")
            if let reset = ready.reset {
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
                state.withLock { $0.machine.progressed(to: revision, generation: link.generation) }
            }
        }
        let reason = await link.waitUntilEnded()
        liveness.cancel()
        logger.log(.info, "disconnected from \(configuration.host):\(configuration.port): \(reason)")
        return reason
    }

    /// The link ended: stop sending on it. Runs before its waiting requests fail.
    func linkEnded(_ link: ServerLink, reason: DisconnectReason) {
        let mirrors = state.withLock { $0.machine.linkEnded(link, reason: reason) } ?? []
        for mirror in mirrors { mirror.sessionEnded() }
        stateChanged()
    }
}
