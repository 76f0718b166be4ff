#if canImport(Glibc)
import Glibc
#endif

/// A connected TCP socket: the server's side of a client connection, or a client's
/// side in tests and benchmarks.
///
/// A thin value over the descriptor. The server uses it non-blocking (`send` and
/// `receive` report `wouldBlock` instead of waiting); clients may use `sendAll` and
/// `waitReadable` to wait with a deadline. `send` uses `MSG_NOSIGNAL`, so a peer
/// that went away is an error, never a `SIGPIPE`.
public struct StreamSocket: Sendable, Hashable {
    /// The outcome of one `receive`.
    public enum Received: Equatable, Sendable {
        /// This many bytes were read into the buffer.
        case bytes(Int)
        /// Nothing to read now (non-blocking socket).
        case wouldBlock
        /// The peer closed its side.
        case closed
    }

    /// The socket's file descriptor.
    public let descriptor: Int32

    /// Wraps an already connected descriptor.
    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Connects to `host:port`, waiting at most `timeoutMilliseconds`; the result is non-blocking.
    ///
    /// `receiveBufferBytes` fixes the kernel's receive buffer before connecting (it
    /// then no longer grows by itself): a client that means to read slowly uses it
    /// to keep the bytes in flight small.
    public static func connect(
        host: String, port: Int, timeoutMilliseconds: Int32 = 5_000, receiveBufferBytes: Int32? = nil
    ) throws -> StreamSocket {
        let address = try SocketAddress(host: host, port: port)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let descriptor = socket(address.family, type, 0)
        guard descriptor >= 0 else { throw SocketError.lastError("socket") }
        let socket = StreamSocket(descriptor: descriptor)
        if var size = receiveBufferBytes {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let status = address.withSocketAddress { Glibc.connect(descriptor, $0, $1) }
        if status != 0 && errno != EINPROGRESS {
            let error = SocketError.lastError("connect \(host):\(port)")
            socket.close()
            throw error
        }
        guard socket.wait(for: Int16(POLLOUT), timeoutMilliseconds: timeoutMilliseconds) else {
            socket.close()
            throw SocketError(operation: "connect \(host):\(port)", errorNumber: ETIMEDOUT)
        }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
        guard failure == 0 else {
            socket.close()
            throw SocketError(operation: "connect \(host):\(port)", errorNumber: failure)
        }
        setNoDelay(descriptor)
        return socket
    }

    /// Sends what the kernel takes now; returns the count, 0 if it would block.
    public func send(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        while true {
            let sent = Glibc.send(descriptor, base, bytes.count, Int32(MSG_NOSIGNAL))
            if sent >= 0 { return sent }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: throw SocketError.lastError("send")
            }
        }
    }

    /// Sends every byte, waiting for the socket to drain at most `timeoutMilliseconds` each time.
    public func sendAll(_ bytes: [UInt8], timeoutMilliseconds: Int32 = 5_000) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = try bytes.withUnsafeBytes { try send(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            offset += sent
            if sent == 0 && !wait(for: Int16(POLLOUT), timeoutMilliseconds: timeoutMilliseconds) {
                throw SocketError(operation: "send", errorNumber: ETIMEDOUT)
            }
        }
    }

    /// Reads what is there into `buffer` without waiting.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws -> Received {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case ECONNRESET: return .closed
            default: throw SocketError.lastError("recv")
            }
        }
    }

    /// Waits until there is something to read (or the peer closed); false on timeout.
    public func waitReadable(timeoutMilliseconds: Int32) -> Bool {
        wait(for: Int16(POLLIN), timeoutMilliseconds: timeoutMilliseconds)
    }

    private func wait(for events: Int16, timeoutMilliseconds: Int32) -> Bool {
        var request = pollfd(fd: descriptor, events: events, revents: 0)
        while true {
            let ready = poll(&request, 1, timeoutMilliseconds)
            if ready >= 0 { return ready > 0 }
            if errno != EINTR { return false }
        }
    }

    /// Whether the peer has closed its sending side or the connection failed,
    /// even with unread bytes still waiting (Linux's `POLLRDHUP`): a connection
    /// that is not being read can still notice its client went away.
    public func hasPeerHungUp() -> Bool {
        // POLLRDHUP (0x2000) is Linux's; the toolchain's Glibc module does not export it.
        let readHangUp: Int16 = 0x2000
        var request = pollfd(fd: descriptor, events: readHangUp, revents: 0)
        guard poll(&request, 1, 0) > 0 else { return false }
        return request.revents & (readHangUp | Int16(POLLHUP) | Int16(POLLERR)) != 0
    }

    /// Stops sending: the peer reads end-of-file after the bytes already sent.
    public func shutdownWrite() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Reads and drops whatever the peer has sent, without waiting.
    ///
    /// - Returns: `true` once the peer has closed its side (or the connection
    ///   failed), `false` while it is still open.
    public func discardInput() -> Bool {
        withUnsafeTemporaryAllocation(byteCount: 4_096, alignment: 16) { buffer in
            // Bounded, so that a peer that keeps sending cannot hold us here.
            for _ in 0..<64 {
                switch try? receive(into: buffer) {
                case .bytes: continue
                case .wouldBlock: return false
                case .closed, nil: return true
                }
            }
            return false
        }
    }

    /// Closes the descriptor.
    public func close() {
        _ = Glibc.close(descriptor)
    }

    /// Has the kernel probe a connection that stays silent, so a client that
    /// vanished without closing (a cut cable, a crashed machine) ends in an error
    /// instead of holding its connection and observations forever: the first
    /// probe after `idleSeconds` of silence, then one every `intervalSeconds`,
    /// and the connection fails after `probes` unanswered ones.
    static func enableKeepAlive(
        _ descriptor: Int32, idleSeconds: Int32 = 60, intervalSeconds: Int32 = 10, probes: Int32 = 3
    ) {
        let size = socklen_t(MemoryLayout<Int32>.size)
        var one: Int32 = 1
        var idle = idleSeconds
        var interval = intervalSeconds
        var count = probes
        _ = setsockopt(descriptor, SOL_SOCKET, SO_KEEPALIVE, &one, size)
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_KEEPIDLE, &idle, size)
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_KEEPINTVL, &interval, size)
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_KEEPCNT, &count, size)
    }

    /// Turns off Nagle's algorithm: frames are small and latency matters more than packets.
    static func setNoDelay(_ descriptor: Int32) {
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }
}
