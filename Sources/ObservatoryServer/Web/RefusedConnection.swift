import ObservatoryEpoll
import ObservatorySockets

/// The socket shell of a `ConnectionRefusal`: it reads a refused connection's
/// first bytes on the accepting loop, sends the answer the machine chooses,
/// and closes the socket when the machine says so.
///
/// ## Threads
/// Confined to its loop's thread, like the listener.
final class RefusedConnection: LoopHandler, @unchecked Sendable {
    /// The most bytes read per readiness report: a first line decides the dialect,
    /// so a refused client never gets more of the loop's read buffer than this.
    static let readBytesPerTurn = 4_096

    private let socket: StreamSocket
    private let loop: EventLoop
    private var refusal: ConnectionRefusal
    private let finished: () -> Void
    private var token = -1
    private var isClosed = false

    /// Wraps an accepted `socket`; `finished` runs once, when it is closed.
    init(socket: StreamSocket, loop: EventLoop, refusal: ConnectionRefusal, finished: @escaping () -> Void) {
        self.socket = socket
        self.loop = loop
        self.refusal = refusal
        self.finished = finished
    }

    /// Starts watching the socket and the machine's deadlines; on the loop's thread.
    /// Returns false (and closes nothing) when the loop cannot watch the socket.
    func start() -> Bool {
        do {
            token = try loop.register(socket.descriptor, interest: .readable, handler: self)
        } catch {
            return false
        }
        scheduleDeadline()
        return true
    }

    func handle(_ readiness: Poller.Readiness) {
        let buffer = UnsafeMutableRawBufferPointer(rebasing: loop.readBuffer[..<Self.readBytesPerTurn])
        let action: ConnectionRefusal.Action
        switch try? socket.receive(into: buffer) {
        case .bytes(let count):
            action = refusal.receive(UnsafeRawBufferPointer(rebasing: buffer[..<count]), now: EventLoop.now())
        case .wouldBlock:
            return
        case .closed, nil:
            action = refusal.inputEnded()
        }
        carryOut(action)
    }

    func loopStopped() {
        close()
    }

    private func carryOut(_ action: ConnectionRefusal.Action) {
        if !action.answer.isEmpty {
            // Best effort: an answer of a few hundred bytes fits an empty socket buffer.
            _ = try? action.answer.withUnsafeBytes { try socket.send($0) }
            socket.shutdownWrite()
        }
        if action.closes { close() }
    }

    private func scheduleDeadline() {
        guard let deadline = refusal.nextDeadline else { return }
        loop.schedule(at: deadline) { [self] in
            guard !isClosed else { return }
            carryOut(refusal.timeReached(EventLoop.now()))
            scheduleDeadline()
        }
    }

    private func close() {
        guard !isClosed else { return }
        isClosed = true
        if token >= 0 { loop.unregister(socket.descriptor, token: token) }
        token = -1
        socket.close()
        finished()
    }
}
