import ObservatorySockets

/// The client's TCP connection to the server: a non-blocking `StreamSocket` with
/// the endpoint named in every error.
///
/// The socket work itself (resolving, connecting, `TCP_NODELAY`, sending without
/// `SIGPIPE`) is ObservatorySockets'. Confined to the client's I/O thread
/// (``ClientEventLoop``): only that thread connects, reads, writes and closes,
/// so a descriptor is never closed under a write and needs no lock.
struct SocketConnection: Sendable {
    private let socket: StreamSocket
    /// `host:port`, for error messages.
    let endpoint: String

    /// The descriptor, for the event loop's waiter.
    var descriptor: Int32 { socket.descriptor }

    /// Opens a TCP connection to `host:port`, trying every address the host
    /// resolves to, each within `timeout`. Blocks the calling thread meanwhile.
    static func connect(host: String, port: Int, timeout: Duration) throws(SocketError) -> SocketConnection {
        let milliseconds = Int32(clamping: Int64(timeout.seconds * 1_000))
        let socket = try StreamSocket.connect(host: host, port: port, timeoutMilliseconds: milliseconds)
        return SocketConnection(socket: socket, endpoint: "\(host):\(port)")
    }

    /// Sends what the kernel takes now, without waiting; returns how many bytes that was.
    func send(_ bytes: UnsafeRawBufferPointer) throws(SocketError) -> Int {
        do throws(SocketError) {
            return try socket.send(bytes)
        } catch {
            throw named(error, "write to")
        }
    }

    /// Reads what is there, without waiting; a reset by the server is an error.
    func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> StreamSocket.Received {
        do throws(SocketError) {
            return try socket.receive(into: buffer, resetIsError: true)
        } catch {
            throw named(error, "read from")
        }
    }

    /// `error` as the failure of `verb` this connection's endpoint (`write to 127.0.0.1:7070`).
    func named(_ error: SocketError, _ verb: String) -> SocketError {
        SocketError(operation: "\(verb) \(endpoint)", errorNumber: error.errorNumber, detail: error.detail)
    }

    /// Closes the descriptor.
    func close() {
        socket.close()
    }
}
