import Observatory
import Dispatch
import Foundation
import ObservatoryWire

/// The Observatory server: listens on TCP, speaks the protocol of PROTOCOL.md to
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
/// Socket work runs on a few serial Dispatch queues (`ioThreads`), each serving
/// many connections; accepting runs on its own queue.
///
/// ## Locking
/// The listener, the connections and the phase live in one `Locked` box; connections
/// are added on the accept queue and removed on their I/O queues.
public final class Server: Sendable {
    private enum Phase {
        case ready, running, stopping, stopped
    }

    private struct State {
        var phase = Phase.ready
        var listener: ListeningSocket?
        var acceptSource: (any DispatchSourceRead)?
        var isAcceptPaused = false
        var connections: [ObjectIdentifier: Connection] = [:]
        var nextWorker = 0
    }

    /// The store, configuration and logger shared by all sessions.
    public let context: ServerContext
    private let state = Locked(State())
    private let workers: [IOWorker]
    private let acceptQueue = DispatchQueue(label: "observatory.accept")
    private let allClosed = DispatchSemaphore(value: 0)
    private let listenerClosed = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    /// Creates a server and reads its data directory back (unless `fsync` is
    /// `none`); nothing is bound until `start()`.
    ///
    /// - Parameter storageOptions: overrides the storage options derived from the
    ///   configuration (tests pass failing file operations this way).
    /// - Throws: `ConfigurationError` if the configuration is invalid;
    ///   `StorageError` if the data directory is in use, unwritable or damaged.
    public init(
        configuration: ServerConfiguration, logger: ServerLogger = .silent, storageOptions: StorageOptions? = nil
    ) throws {
        try configuration.validate()
        context = try ServerContext(configuration: configuration, logger: logger, storageOptions: storageOptions)
        // Dispatch adds its own manager thread for readiness events, so "auto" takes
        // half the cores: on small machines fewer thread handoffs beat parallelism.
        let threads = configuration.ioThreads > 0
            ? configuration.ioThreads : min(4, max(1, ProcessInfo.processInfo.activeProcessorCount / 2))
        workers = (0..<threads).map { IOWorker(label: "observatory.io.\($0)") }
    }

    /// The store, for programs that embed the server.
    public var store: SharedStore { context.store }

    /// The port the server listens on (the real one when 0 was configured); 0 before `start()`.
    public var port: Int {
        state.withLock { $0.listener?.port ?? 0 }
    }

    /// The number of open connections.
    public var connectionCount: Int {
        state.withLock { $0.connections.count }
    }

    /// Binds, listens and starts accepting connections.
    ///
    /// - Throws: `SocketError` if the address cannot be bound (in use, not local, ...).
    public func start() throws {
        let configuration = context.configuration
        let listener = try ListeningSocket(host: configuration.host, port: configuration.port)
        let source = DispatchSource.makeReadSource(fileDescriptor: listener.descriptor, queue: acceptQueue)
        source.setEventHandler { [self] in acceptPending() }
        source.setCancelHandler { [listenerClosed] in
            listener.close()
            listenerClosed.signal()
        }
        let started = state.withLock { state in
            guard state.phase == .ready else { return false }
            state.phase = .running
            state.listener = listener
            state.acceptSource = source
            source.resume()
            return true
        }
        guard started else {
            listener.close()
            throw SocketError(operation: "start", errorNumber: EALREADY, detail: "the server was already started")
        }
        context.logger.info("listening on \(configuration.host):\(listener.port)")
        for warning in context.configurationWarnings { context.logger.warning(warning) }
    }

    private func acceptPending() {
        for _ in 0..<1_024 {
            let descriptor: Int32?
            do {
                descriptor = try state.withLock { try $0.listener?.accept() }
            } catch {
                context.logger.error("\(error); pausing accepts for 100 ms")
                pauseAccepting()
                return
            }
            guard let descriptor else { return }
            admit(StreamSocket(descriptor: descriptor))
        }
    }

    private func pauseAccepting() {
        state.withLock { current in
            guard let source = current.acceptSource, !current.isAcceptPaused else { return }
            source.suspend()
            current.isAcceptPaused = true
            acceptQueue.asyncAfter(deadline: .now() + .milliseconds(100)) { [self] in
                state.withLock { later in
                    guard later.isAcceptPaused, let source = later.acceptSource else { return }
                    source.resume()
                    later.isAcceptPaused = false
                }
            }
        }
    }

    private func admit(_ socket: StreamSocket) {
        let limit = context.configuration.limits.maxConnections
        let connection: Connection? = state.withLock { state in
            guard state.phase == .running, state.connections.count < limit else { return nil }
            let worker = workers[state.nextWorker % workers.count]
            state.nextWorker &+= 1
            let connection = Connection(socket: socket, worker: worker, context: context) { [self] closed in
                remove(closed)
            }
            state.connections[ObjectIdentifier(connection)] = connection
            return connection
        }
        guard let connection else {
            refuse(socket, limit: limit)
            return
        }
        context.logger.debug("connection \(connection.sessionID) opened")
        connection.queue.async { connection.start() }
    }

    /// Answers a connection over the limit with `limit_exceeded` (best effort, it must
    /// not block the accept queue) and closes it.
    private func refuse(_ socket: StreamSocket, limit: Int) {
        let error = context.isShuttingDown
            ? WireError(code: .shuttingDown, message: "the server is shutting down")
            : WireError(code: .limitExceeded, message: "the server has its maximum of \(limit) connections")
        var frame = Reply.failure(id: nil, error).encoded()
        frame.append(UInt8(ascii: "\n"))
        _ = try? frame.withUnsafeBytes { try socket.send($0) }
        socket.close()
        context.logger.warning("refused a connection: \(error.message)")
    }

    private func remove(_ connection: Connection) {
        let remaining = state.withLock { state in
            state.connections[ObjectIdentifier(connection)] = nil
            return state.phase == .stopping ? state.connections.count : -1
        }
        context.logger.debug("connection \(connection.sessionID) closed")
        if remaining == 0 { allClosed.signal() }
    }

    /// Shuts down gracefully and returns when done: stops accepting, answers further
    /// requests with `shutting_down`, sends `{"event":"shutdown"}` to every
    /// connection, waits up to `shutdownGraceMilliseconds` for them to take it, then
    /// closes whatever is left, and flushes and fsyncs storage. Safe to call more
    /// than once and from any thread; also for a server never started, to release
    /// its data directory.
    public func stop() {
        guard context.beginShutdown() else {
            waitUntilStopped()
            return
        }
        let (connections, wasListening): ([Connection], Bool) = state.withLock { state in
            let wasListening = state.acceptSource != nil
            if let source = state.acceptSource {
                // A suspended source runs its cancel handler only once resumed.
                if state.isAcceptPaused { source.resume() }
                source.cancel()
            }
            state.acceptSource = nil
            state.isAcceptPaused = false
            state.phase = .stopping
            return (Array(state.connections.values), wasListening)
        }
        if wasListening {
            // The port is free when stop() returns, so a test or a restart can bind it at once.
            _ = listenerClosed.wait(timeout: .now() + .seconds(5))
        }
        context.logger.info("shutting down: \(connections.count) connections to close")
        if !connections.isEmpty {
            for connection in connections { connection.shutDown() }
            let grace = context.configuration.shutdownGraceMilliseconds + 500
            if allClosed.wait(timeout: .now() + .milliseconds(grace)) == .timedOut {
                let stragglers = state.withLock { Array($0.connections.values) }
                for connection in stragglers { connection.queue.async { connection.close() } }
            }
        }
        context.store.storage?.close()
        state.withLock { $0.phase = .stopped }
        context.logger.info("stopped")
        stopped.signal()
    }

    /// Blocks until `stop()` has finished (for the daemon's main thread).
    public func waitUntilStopped() {
        stopped.wait()
        stopped.signal()
    }
}
