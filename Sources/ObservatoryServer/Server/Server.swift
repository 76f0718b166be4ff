import Dispatch
import Foundation
import Observatory
import ObservatoryLogging
import ObservatorySockets
import ObservatoryWire

/// The Observatory server: listens on TCP, speaks the protocol of docs/protocol.md to
/// every client, and shares one store among them.
///
/// Usable in-process (tests, the client's end-to-end tests) as well as by
/// `observatoryd`:
///
///     var configuration = ServerConfiguration()
///     configuration.port = 0                   // any free port
///     let server = try Server(configuration: configuration)
///     try server.start()
///     print(server.port)                       // the real port
///     server.stop()                            // graceful: shutdown event, flush, close
///
/// Connections are served by event loops on epoll, one per two cores by default
/// (`ioThreads`); the first loop also accepts.
///
/// ## Locking
/// The listener, the connections and the phase live in one `Locked` box; connections
/// are added by the accepting loop and removed by their own.
public final class Server: Sendable {
    private enum Phase {
        case ready, running, stopping, stopped
    }

    private struct State {
        var phase = Phase.ready
        var listener: Listener?
        var connections: [ObjectIdentifier: Connection] = [:]
        var nextLoop = 0
        /// Refused connections still waiting to show their dialect or to hang up.
        var refusing = 0
    }

    /// The most refused connections answered in their own dialect at once; more
    /// are answered in the line protocol at once, so that a flood over the limit
    /// holds at most this many sockets and first lines (16 KiB each).
    static let maxRefusing = 16

    /// The server's name and version, as `hello` replies name it and
    /// `observatoryd --version` prints it.
    public static let version = "observatoryd 0.1.0"

    /// The settings the server runs with.
    public let configuration: ServerConfiguration
    /// The shared values, for programs that embed the server (in cluster mode, the
    /// node's cache of etcd: read it, write through a connection).
    public let store: SharedStore
    /// What every session shares: the state, authentication, session ids, limits.
    let sessions: SessionEnvironment
    /// The bytes of unfinished frames all connections hold, against `limits.maxBufferedInputBytes`.
    let inputBudget: InputBudget
    private let connectionSettings: ConnectionSettings
    private let logger: Logger
    private let state = Locked(State())
    /// When to give the memory of closed connections back to the system.
    private let trimSchedule = Locked(TrimSchedule())
    private let loops: [EventLoop]
    private let allClosed = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    /// Creates a server and reads its data directory back (unless `fsync` is
    /// `none`); nothing is bound until `start()`.
    ///
    /// - Parameters:
    ///   - configuration: the settings to serve with; validated here.
    ///   - logger: where the server logs; silent by default.
    ///   - storageOptions: overrides the storage options derived from the
    ///     configuration (tests pass failing file operations this way).
    /// - Throws: `ConfigurationError` if the configuration is invalid;
    ///   `StorageError` if the data directory is in use, unwritable or damaged;
    ///   `SocketError` if the kernel refuses an epoll set.
    public init(
        configuration: ServerConfiguration, logger: Logger = .silent, storageOptions: StorageOptions? = nil
    ) throws {
        try configuration.validate()
        self.configuration = configuration
        self.logger = logger
        (store, sessions) = try Self.openSharedState(configuration, logger: logger, storageOptions: storageOptions)
        inputBudget = InputBudget(maxBytes: configuration.limits.maxBufferedInputBytes)
        connectionSettings = ConnectionSettings(configuration)
        let count =
            configuration.ioThreads > 0
            ? configuration.ioThreads : Self.defaultLoopCount(cores: ProcessInfo.processInfo.activeProcessorCount)
        // Sessions' writes are batched per loop turn (without storage, as in a cluster's cache, there is nothing to batch).
        let endOfTurn = store.batchWritesPerTurn()
        loops = try (0..<count).map { index throws(SocketError) in
            try EventLoop(label: "observatory.loop.\(index)", logger: logger, endOfTurn: endOfTurn)
        }
        sessions.state.onViewLost { [weak self] revision in self?.closeObservers(reloadedAt: revision) }
    }

    /// Closes every connection that observes something with `unavailable` and the
    /// `revision` the cluster state was reloaded at: its view lost continuity, so
    /// its observers resume from what they saw (docs/protocol.md, "Cluster mode").
    private func closeObservers(reloadedAt revision: Int64) {
        let connections = state.withLock { Array($0.connections.values) }
        for connection in connections {
            connection.loop.execute { connection.closeObserving(becauseReloadedAt: revision) }
        }
    }

    /// How many event loops `ioThreads: 0` runs: one per two cores.
    ///
    /// The other half is left to the kernel's network stack, which does much of
    /// a loopback or busy server's work in softirq context, and to the storage
    /// thread. Measured on two cores: a second loop raised sets from 50
    /// connections by 13 %, but a change fanned out across loops costs a wake-up
    /// per loop, and three busy threads on two cores wait out each other's time
    /// slices: fan-out fell by 20–35 % and the p99 of paced events grew from 1.7 to 6 ms.
    static func defaultLoopCount(cores: Int) -> Int {
        max(1, cores / 2)
    }

    /// The cluster state in cluster mode (`configuration.cluster`), else `nil`: for tests.
    var clusterState: ClusterState? {
        sessions.state as? ClusterState
    }

    /// The port the server listens on (the real one when 0 was configured); 0 before `start()`.
    public var port: Int {
        state.withLock { $0.listener?.port ?? 0 }
    }

    /// The number of open connections.
    public var connectionCount: Int {
        state.withLock { $0.connections.count }
    }

    /// The open connections, for a scrape of `/metrics`.
    func connectionsNow() -> [Connection] {
        state.withLock { Array($0.connections.values) }
    }

    /// Binds, listens and starts accepting connections.
    ///
    /// - Throws: `SocketError` if the address cannot be bound (in use, not local, ...).
    public func start() throws {
        let socket = try ListeningSocket(host: configuration.host, port: configuration.port)
        let acceptingLoop = loops[0]
        let listener = Listener(socket: socket, loop: acceptingLoop, logger: logger) { [self] accepted in
            admit(accepted)
        }
        let started = state.withLock { state in
            guard state.phase == .ready else { return false }
            state.phase = .running
            state.listener = listener
            return true
        }
        guard started else {
            socket.close()
            throw SocketError(operation: "start", errorNumber: EALREADY, detail: "the server was already started")
        }
        for loop in loops { loop.start() }
        ExpiryTimer(loop: loops[0], state: sessions.state, metrics: sessions.metrics, logger: logger).start()
        let registered = Locked<SocketError?>(nil)
        let done = DispatchSemaphore(value: 0)
        acceptingLoop.execute {
            do throws(SocketError) {
                try listener.start()
            } catch {
                registered.withLock { $0 = error }
            }
            done.signal()
        }
        done.wait()
        if let error = registered.withLock({ $0 }) { throw error }
        logger.info("listening on \(configuration.host):\(listener.port)")
        for warning in configuration.warnings { logger.warning(warning) }
    }

    private func admit(_ socket: StreamSocket) {
        let limit = configuration.limits.maxConnections
        let connection: Connection? = state.withLock { state in
            guard state.phase == .running, state.connections.count < limit else { return nil }
            let loop = loops[state.nextLoop % loops.count]
            state.nextLoop &+= 1
            let connection = Connection(
                socket: socket, loop: loop, sessions: sessions, settings: connectionSettings, inputBudget: inputBudget,
                metricsPage: { [weak self] in self?.metricsPage() ?? [] }
            ) { [self] closed in
                remove(closed)
            }
            state.connections[ObjectIdentifier(connection)] = connection
            return connection
        }
        guard let connection else {
            refuse(socket, limit: limit)
            return
        }
        logger.debug("connection \(connection.sessionID) opened")
        if connection.loop.isCurrent {
            connection.start()
        } else {
            connection.loop.execute { connection.start() }
        }
    }

    /// Answers a connection over the limit (or during shutdown) in the dialect its
    /// client speaks, then closes it (`ConnectionRefusal`): an HTTP client gets 503
    /// with `Retry-After`, a line-protocol client `limit_exceeded` with id null.
    /// Sniffing happens on the accepting loop, bounded in time by the machine and
    /// in number by `maxRefusing`; beyond that the line protocol's answer goes at once.
    private func refuse(_ socket: StreamSocket, limit: Int) {
        var refusal = ConnectionRefusal.overLimit(limit, now: EventLoop.now())
        if sessions.isShuttingDown {
            refusal = ConnectionRefusal(
                error: WireError(code: .shuttingDown, message: "the server is shutting down"), now: EventLoop.now())
        }
        logger.warning("refused a connection: \(refusal.error.message)")
        let loop = loops[0]
        let admitted = state.withLock { state in
            guard loop.isCurrent, state.refusing < Self.maxRefusing else { return false }
            state.refusing += 1
            return true
        }
        if admitted {
            let refused = RefusedConnection(socket: socket, loop: loop, refusal: refusal) { [self] in
                state.withLock { $0.refusing -= 1 }
            }
            if refused.start() { return }
            state.withLock { $0.refusing -= 1 }
        }
        // Best effort: the answer must not hold up the accepting loop.
        let frame = Reply.failure(id: nil, refusal.error).encodedLine()
        _ = try? frame.withUnsafeBytes { try socket.send($0) }
        socket.close()
    }

    private func remove(_ connection: Connection) {
        let remaining = state.withLock { state in
            state.connections[ObjectIdentifier(connection)] = nil
            return state.phase == .stopping ? state.connections.count : -1
        }
        logger.debug("connection \(connection.sessionID) closed")
        if remaining == 0 { allClosed.signal() }
        if trimSchedule.withLock({ $0.connectionClosed() }) {
            // Off the loops (a trim walks every heap, which must not hold up their
            // connections), and not on a loop's timers, which only its own thread may touch.
            let delay = DispatchTimeInterval.nanoseconds(Int(TrimSchedule.delayNanoseconds))
            DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + delay) { [trimSchedule] in
                SystemMemory.trim()
                trimSchedule.withLock { $0.trimmed() }
            }
        }
    }

    /// Shuts down gracefully and returns when done: stops accepting, answers further
    /// requests with `shutting_down`, sends `{"event":"shutdown"}` to every
    /// connection, waits up to `shutdownGraceMilliseconds` for them to take it, then
    /// closes whatever is left, stops the loops, and flushes and fsyncs storage.
    /// Safe to call more than once and from any thread but a loop's; also for a
    /// server never started, to release its data directory.
    public func stop() {
        guard sessions.beginShutdown() else {
            waitUntilStopped()
            return
        }
        let (connections, listener) = state.withLock { state in
            state.phase = .stopping
            return (Array(state.connections.values), state.listener)
        }
        if let listener {
            // The port is free when stop() returns, so a test or a restart can bind it at once.
            let closed = DispatchSemaphore(value: 0)
            loops[0].execute {
                listener.close()
                closed.signal()
            }
            _ = closed.wait(timeout: .now() + .seconds(5))
        }
        logger.info("shutting down: \(connections.count) connections to close")
        if !connections.isEmpty {
            for connection in connections { connection.loop.execute { connection.shutDown() } }
            let grace = configuration.shutdownGraceMilliseconds + 500
            _ = allClosed.wait(timeout: .now() + .milliseconds(grace))
        }
        // Closes what is left, lingering sockets included.
        for loop in loops { loop.stop() }
        sessions.state.close()
        state.withLock { $0.phase = .stopped }
        logger.info("stopped")
        stopped.signal()
    }

    /// Blocks until `stop()` has finished (for the daemon's main thread).
    public func waitUntilStopped() {
        stopped.wait()
        stopped.signal()
    }
}
