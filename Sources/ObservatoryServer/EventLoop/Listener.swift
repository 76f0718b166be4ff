import ObservatoryEpoll
import ObservatoryLogging
import ObservatorySockets

/// The listening socket, served by one event loop: it accepts connections and
/// hands each to the server, which places it on a loop.
///
/// ## Threads
/// Confined to its loop's thread, like a connection.
final class Listener: LoopHandler, @unchecked Sendable {
    private let socket: ListeningSocket
    private let loop: EventLoop
    private let logger: Logger
    private let admit: (StreamSocket) -> Void
    private var token = -1
    private var isClosed = false

    /// Connections accepted per readiness report, so that a flood of new
    /// connections does not hold the loop away from the ones it serves.
    private static let acceptsPerTurn = 64
    /// How long accepting pauses after the process ran out of descriptors.
    private static let pauseNanoseconds: UInt64 = 100_000_000

    /// The port actually bound.
    var port: Int { socket.port }

    /// Wraps `socket`; `admit` takes every accepted connection.
    init(socket: ListeningSocket, loop: EventLoop, logger: Logger, admit: @escaping (StreamSocket) -> Void) {
        self.socket = socket
        self.loop = loop
        self.logger = logger
        self.admit = admit
    }

    /// Starts accepting; on the loop's thread.
    func start() throws(SocketError) {
        token = try loop.register(socket.descriptor, interest: .readable, handler: self)
    }

    /// Stops accepting and closes the socket; on the loop's thread.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        if token >= 0 { loop.unregister(socket.descriptor, token: token) }
        token = -1
        socket.close()
    }

    func handle(_ readiness: Poller.Readiness) {
        for _ in 0..<Self.acceptsPerTurn {
            let descriptor: Int32?
            do {
                descriptor = try socket.accept()
            } catch {
                logger.error("\(error); pausing accepts for 100 ms")
                pause()
                return
            }
            guard let descriptor else { return }
            admit(StreamSocket(descriptor: descriptor))
        }
    }

    func loopStopped() {
        close()
    }

    /// Stops watching the socket for a while: with no descriptor left, every
    /// wait would report it again at once.
    private func pause() {
        loop.unregister(socket.descriptor, token: token)
        token = -1
        loop.schedule(at: EventLoop.now() + Self.pauseNanoseconds) { [self] in
            guard !isClosed else { return }
            do {
                try start()
            } catch {
                logger.error("cannot resume accepting: \(error)")
            }
        }
    }
}
