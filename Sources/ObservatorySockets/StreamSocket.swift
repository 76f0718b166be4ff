#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A connected TCP socket: the server's side of a client connection, or a client's
/// side (the client library's, the tests' and the benchmark's).
///
/// A thin value over the descriptor. The server uses it non-blocking (`send` and
/// `receive` report `wouldBlock` instead of waiting); clients may use `sendAll` and
/// `waitReadable` to wait with a deadline, or connect in blocking mode for a
/// reader thread that waits in `receive`. `send` never blocks, in either mode, and
/// never raises `SIGPIPE` (Linux's `MSG_NOSIGNAL`, Darwin's `SO_NOSIGPIPE`): a peer
/// that went away is an error.
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

    /// Connects to `host:port` with `TCP_NODELAY`, trying every address the host
    /// resolves to (IPv4 and IPv6) in turn, each for at most `timeoutMilliseconds`.
    ///
    /// - Parameters:
    ///   - receiveBufferBytes: fixes the kernel's receive buffer before connecting
    ///     (it then no longer grows by itself): a client that means to read slowly
    ///     uses it to keep the bytes in flight small.
    ///   - blocking: leaves the socket in blocking mode, for a reader thread that
    ///     waits in `receive`; `send` and `sendAll` still never block beyond their
    ///     deadline. By default the socket is non-blocking.
    /// - Throws: `SocketError` naming `connect to host:port`: the host does not
    ///   resolve, or the last address refused, failed or timed out.
    public static func connect(
        host: String, port: Int, timeoutMilliseconds: Int32 = 5_000, receiveBufferBytes: Int32? = nil,
        blocking: Bool = false
    ) throws(SocketError) -> StreamSocket {
        let operation = "connect to \(host):\(port)"
        var failure = SocketError(operation: operation, errorNumber: 0, detail: "the host has no address")
        for address in try SocketAddress.resolve(host: host, port: port, for: operation) {
            do {
                let socket = try connect(
                    to: address, timeoutMilliseconds: timeoutMilliseconds, receiveBufferBytes: receiveBufferBytes,
                    operation: operation)
                if blocking {
                    _ = fcntl(socket.descriptor, F_SETFL, fcntl(socket.descriptor, F_GETFL) & ~O_NONBLOCK)
                }
                return socket
            } catch {
                failure = error
            }
        }
        throw failure
    }

    /// Connects one non-blocking socket to one address, waiting for the outcome at most `timeoutMilliseconds`.
    private static func connect(
        to address: SocketAddress, timeoutMilliseconds: Int32, receiveBufferBytes: Int32?, operation: String
    ) throws(SocketError) -> StreamSocket {
        let descriptor = Platform.makeStreamSocket(family: address.family)
        guard descriptor >= 0 else { throw SocketError.lastError(operation) }
        let socket = StreamSocket(descriptor: descriptor)
        if var size = receiveBufferBytes {
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let status = address.withSocketAddress { Platform.connect(descriptor, $0, $1) }
        if status != 0 && errno != EINPROGRESS {
            let error = SocketError.lastError(operation)
            socket.close()
            throw error
        }
        guard socket.wait(for: Int16(POLLOUT), timeoutMilliseconds: timeoutMilliseconds) else {
            socket.close()
            throw SocketError.timedOut(operation)
        }
        var failure: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &failure, &length)
        guard failure == 0 else {
            socket.close()
            throw SocketError(operation: operation, errorNumber: failure)
        }
        setNoDelay(descriptor)
        return socket
    }

    /// Sends what the kernel takes now; returns the count, 0 if it would block.
    ///
    /// `MSG_DONTWAIT`: it never waits, also on a blocking socket, so a writer's
    /// wait is always bounded by `sendAll`'s deadline.
    public func send(_ bytes: UnsafeRawBufferPointer) throws(SocketError) -> Int {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        while true {
            let sent = Platform.send(descriptor, base, bytes.count, Platform.sendFlags | Int32(MSG_DONTWAIT))
            if sent >= 0 { return sent }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: throw SocketError.lastError("send")
            }
        }
    }

    /// Sends every byte, waiting for the socket to drain at most `timeoutMilliseconds` each time.
    public func sendAll(_ bytes: [UInt8], timeoutMilliseconds: Int32 = 5_000) throws(SocketError) {
        var offset = 0
        while offset < bytes.count {
            // `withUnsafeBytes` rethrows untyped errors; the `Result` keeps the type.
            let sent = try bytes.withUnsafeBytes { raw in
                Result { () throws(SocketError) in try send(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }.get()
            offset += sent
            if sent == 0 && !wait(for: Int16(POLLOUT), timeoutMilliseconds: timeoutMilliseconds) {
                throw SocketError.timedOut("send")
            }
        }
    }

    /// Reads what is there into `buffer`; on a blocking socket, waits until there is something.
    ///
    /// - Parameter resetIsError: whether a reset by the peer (`ECONNRESET`) is
    ///   thrown, for a client that reports how its connection failed, or counts
    ///   as `closed`, for a server that does not care how a client left.
    public func receive(into buffer: UnsafeMutableRawBufferPointer, resetIsError: Bool = false) throws(SocketError)
        -> Received
    {
        while true {
            let count = recv(descriptor, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case ECONNRESET where !resetIsError: return .closed
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
    /// that is not being read can still notice its client went away. Darwin has no
    /// such event: there it tells only of a connection closed both ways or failed.
    public func hasPeerHungUp() -> Bool {
        let hangUp = Platform.peerHangUpEvents
        var request = pollfd(fd: descriptor, events: hangUp, revents: 0)
        guard poll(&request, 1, 0) > 0 else { return false }
        return request.revents & (hangUp | Int16(POLLHUP) | Int16(POLLERR)) != 0
    }

    /// Stops sending: the peer reads end-of-file after the bytes already sent.
    public func shutdownWrite() {
        _ = Platform.shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Stops sending and receiving, without closing the descriptor: a thread
    /// blocked in `receive` returns `closed`, and the peer reads end-of-file.
    public func shutdown() {
        _ = Platform.shutdown(descriptor, Int32(SHUT_RDWR))
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
        Platform.close(descriptor)
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
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), Platform.keepAliveIdleOption, &idle, size)
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_KEEPINTVL, &interval, size)
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_KEEPCNT, &count, size)
    }

    /// Turns off Nagle's algorithm: frames are small and latency matters more than packets.
    static func setNoDelay(_ descriptor: Int32) {
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }
}
