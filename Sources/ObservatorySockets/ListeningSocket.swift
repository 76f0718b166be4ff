#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A non-blocking TCP listening socket.
///
/// Owned by the server's `Listener`: the accepting event loop calls `accept()`
/// when its poller reports the socket readable, and it returns `nil` instead of
/// blocking when nobody is waiting.
public struct ListeningSocket: Sendable {
    /// The socket's file descriptor.
    public let descriptor: Int32
    /// The port actually bound (the real one when 0 was asked for).
    public let port: Int

    /// Creates, binds and listens; `SO_REUSEADDR` so a restart can reuse the port at once.
    public init(host: String, port: Int, backlog: Int32 = 4_096) throws {
        let operation = "listen on \(host):\(port)"
        // The first address, as the resolver prefers; a listener serves one.
        guard let address = try SocketAddress.resolve(host: host, port: port, for: operation).first else {
            throw SocketError(operation: operation, errorNumber: 0, detail: "the host has no address")
        }
        let descriptor = Platform.makeStreamSocket(family: address.family)
        guard descriptor >= 0 else { throw SocketError.lastError("socket") }
        do {
            var one: Int32 = 1
            guard setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0
            else { throw SocketError.lastError("setsockopt SO_REUSEADDR") }
            let bound = address.withSocketAddress { bind(descriptor, $0, $1) }
            guard bound == 0 else { throw SocketError.lastError("bind \(host):\(port)") }
            guard listen(descriptor, backlog) == 0 else { throw SocketError.lastError(operation) }
            self.port = try SocketAddress.localPort(of: descriptor)
            self.descriptor = descriptor
        } catch {
            Platform.close(descriptor)
            throw error
        }
    }

    /// The next pending connection as a non-blocking descriptor, or `nil` when there is none.
    ///
    /// Errors that concern only the connection being accepted (it was reset before
    /// we took it) are skipped; `EMFILE`/`ENFILE` are thrown so the server can log them.
    public func accept() throws -> Int32? {
        while true {
            // accept + fcntl: the same on every platform (Linux's accept4 is not in its Glibc module).
            let connection = Platform.accept(descriptor)
            if connection >= 0 {
                _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL, 0) | O_NONBLOCK)
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                Platform.suppressBrokenPipeSignal(on: connection)
                StreamSocket.setNoDelay(connection)
                StreamSocket.enableKeepAlive(connection)
                return connection
            }
            switch errno {
            case EAGAIN, EWOULDBLOCK: return nil
            case EINTR, ECONNABORTED, EPROTO: continue
            default: throw SocketError.lastError("accept")
            }
        }
    }

    /// Closes the socket: no further connections are accepted.
    public func close() {
        Platform.close(descriptor)
    }
}
