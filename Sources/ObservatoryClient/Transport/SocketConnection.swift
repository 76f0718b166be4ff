import Foundation
import Observatory
import ObservatorySockets

/// The client's connection to the server: a blocking `StreamSocket`, writes
/// bounded by the send timeout, and a reader thread that hands every chunk of
/// received bytes to a callback.
///
/// The socket work itself (resolving, connecting, `TCP_NODELAY`, sending without
/// `SIGPIPE`) is ObservatorySockets'; this type adds the thread, the endpoint in
/// every error message, and the rules below.
///
/// Thread safety: the socket lives in a `Locked` box, held only to look at or
/// change the state, never across a send. Writes come one at a time (the
/// link's write queue makes them; a second concurrent writer fails, so frames
/// never interleave), and while a write is under way the descriptor stays
/// open: the reader thread that ends the connection leaves closing it to the
/// writer, so no write ever reaches a descriptor number that was closed and
/// reused. `close()` shuts the socket down, which wakes the reader and fails
/// a blocked write; whoever is last then closes the descriptor.
final class SocketConnection: Sendable {
    private struct State {
        /// nil once the reader thread has closed it.
        var socket: StreamSocket?
        var isShutDown = false
        var readerStarted = false
        /// A write is sending on `socket` outside the lock.
        var isWriting = false
        /// The reader finished during a write: the writer closes the descriptor.
        var closeAfterWrite = false
    }

    private let state: Locked<State>
    /// `host:port`, for error messages.
    let endpoint: String
    /// How long a write waits for the server to take more bytes before it fails.
    private let sendTimeoutMilliseconds: Int32

    private init(socket: StreamSocket, endpoint: String, sendTimeoutMilliseconds: Int32) {
        self.state = Locked(State(socket: socket))
        self.endpoint = endpoint
        self.sendTimeoutMilliseconds = sendTimeoutMilliseconds
    }

    deinit {
        state.withLock { state in
            if !state.readerStarted { state.socket?.close() }
        }
    }

    /// Opens a TCP connection to `host:port`, trying every address the host
    /// resolves to, each within `timeout`; a write may then wait at most
    /// `sendTimeout` each time the server does not take bytes.
    static func connect(host: String, port: Int, timeout: Duration, sendTimeout: Duration) throws(SocketError)
        -> SocketConnection
    {
        let socket = try StreamSocket.connect(
            host: host, port: port, timeoutMilliseconds: milliseconds(timeout), blocking: true)
        return SocketConnection(
            socket: socket, endpoint: "\(host):\(port)", sendTimeoutMilliseconds: milliseconds(sendTimeout))
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        Int32(clamping: Int64(duration.seconds * 1_000))
    }

    /// Starts the reader thread. `received` gets every chunk in order; `ended`
    /// is called once, after the last chunk, with the error that ended the
    /// connection (nil when the peer closed it or `close()` was called).
    func startReading(
        received: @escaping @Sendable ([UInt8]) -> Void, ended: @escaping @Sendable (SocketError?) -> Void
    ) {
        let socket: StreamSocket? = state.withLock { state in
            guard !state.readerStarted, let socket = state.socket else { return nil }
            state.readerStarted = true
            return socket
        }
        guard let socket else { return }
        let thread = Thread { [self] in
            let error = readUntilEnd(socket, received: received)
            state.withLock { state in
                if state.isWriting {
                    state.closeAfterWrite = true
                } else {
                    state.socket?.close()
                }
                state.socket = nil
            }
            ended(error)
        }
        thread.name = "observatory-client-reader"
        thread.start()
    }

    /// Reads until end of stream or an error; a reset by the server is an error.
    private func readUntilEnd(_ socket: StreamSocket, received: @Sendable ([UInt8]) -> Void) -> SocketError? {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let outcome: StreamSocket.Received
            do throws(SocketError) {
                // `withUnsafeMutableBytes` rethrows untyped errors; the `Result` keeps the type.
                outcome = try buffer.withUnsafeMutableBytes { bytes in
                    Result { () throws(SocketError) in try socket.receive(into: bytes, resetIsError: true) }
                }.get()
            } catch {
                let wasShutDown = state.withLock { $0.isShutDown }
                return wasShutDown ? nil : named(error, "read from")
            }
            switch outcome {
            case .bytes(let count): received(Array(buffer[0..<count]))
            case .closed: return nil
            // A blocking socket waits instead; nothing to do but read again.
            case .wouldBlock: continue
            }
        }
    }

    /// Sends all of `bytes`, or throws: a broken pipe is an error, never a signal.
    ///
    /// One write at a time: the lock is not held while sending (a send may wait
    /// up to the send timeout), so a second writer meanwhile would interleave
    /// its bytes; it fails instead.
    func write(_ bytes: [UInt8]) throws(SocketError) {
        let socket = try state.withLock { (state: inout State) throws(SocketError) -> StreamSocket in
            guard let socket = state.socket, !state.isShutDown, !state.isWriting else {
                throw SocketError.closed("write to \(endpoint)")
            }
            state.isWriting = true
            return socket
        }
        defer {
            let closeNow = state.withLock { state in
                state.isWriting = false
                return state.closeAfterWrite
            }
            if closeNow { socket.close() }
        }
        do throws(SocketError) {
            try socket.sendAll(bytes, timeoutMilliseconds: sendTimeoutMilliseconds)
        } catch {
            throw named(error, "write to")
        }
    }

    /// `error` as the failure of `verb` this connection's endpoint (`write to 127.0.0.1:7070`).
    private func named(_ error: SocketError, _ verb: String) -> SocketError {
        SocketError(operation: "\(verb) \(endpoint)", errorNumber: error.errorNumber, detail: error.detail)
    }

    /// Shuts the connection down; the reader thread then ends and closes the
    /// descriptor. Safe to call more than once and from any thread.
    func close() {
        state.withLock { state in
            guard let socket = state.socket, !state.isShutDown else { return }
            state.isShutDown = true
            socket.shutdown()
        }
    }
}
