import Foundation
import Observatory
import ObservatorySockets
#if canImport(Glibc)
import Glibc
#endif

/// A connected TCP socket to the server: blocking writes, and a reader thread
/// that hands every chunk of received bytes to a callback.
///
/// Thread safety: the file descriptor lives in a `Locked` box; writes hold it for the
/// whole `send` loop, so frames from different threads never interleave, and the
/// reader thread closes the descriptor under it, so no write ever reaches a
/// descriptor number that was closed and reused. `close()` shuts the socket
/// down, which wakes the reader; the reader then closes the descriptor.
final class SocketConnection: Sendable {
    private struct State {
        var descriptor: Int32
        var isShutDown = false
        var readerStarted = false
    }

    private let state: Locked<State>
    /// `host:port`, for error messages.
    let endpoint: String

    private init(descriptor: Int32, endpoint: String) {
        self.state = Locked(State(descriptor: descriptor))
        self.endpoint = endpoint
    }

    deinit {
        state.withLock { state in
            if !state.readerStarted && state.descriptor >= 0 {
                Glibc.close(state.descriptor)
            }
        }
    }

    /// Opens a TCP connection to `host:port`, trying every address the host
    /// resolves to, each within `timeout`.
    static func connect(host: String, port: Int, timeout: Duration, sendTimeout: Duration) throws(SocketError) -> SocketConnection {
        let endpoint = "\(host):\(port)"
        let operation = "connect to \(endpoint)"
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw SocketError(
                operation: operation, errorNumber: 0,
                detail: "cannot resolve the host (\(String(cString: gai_strerror(resolved))))")
        }
        defer { freeaddrinfo(list) }
        var lastError = SocketError(operation: operation, errorNumber: 0, detail: "the host has no address")
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let address = candidate {
            do {
                let descriptor = try openSocket(to: address.pointee, timeout: timeout, operation: operation)
                setOptions(descriptor, sendTimeout: sendTimeout)
                return SocketConnection(descriptor: descriptor, endpoint: endpoint)
            } catch {
                lastError = error
            }
            candidate = address.pointee.ai_next
        }
        throw lastError
    }

    /// Connects one socket to one address: non-blocking connect, `poll` for the
    /// timeout, then back to blocking mode for the reader thread.
    private static func openSocket(to address: addrinfo, timeout: Duration, operation: String) throws(SocketError) -> Int32 {
        let descriptor = socket(address.ai_family, address.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), address.ai_protocol)
        guard descriptor >= 0 else {
            throw SocketError(operation: operation, errorNumber: errno)
        }
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        if Glibc.connect(descriptor, address.ai_addr, address.ai_addrlen) != 0 {
            let connectError = errno
            guard connectError == EINPROGRESS else {
                Glibc.close(descriptor)
                throw SocketError(operation: operation, errorNumber: connectError)
            }
            do {
                try waitForConnect(descriptor, timeout: timeout, operation: operation)
            } catch {
                Glibc.close(descriptor)
                throw error
            }
        }
        _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK)
        return descriptor
    }

    /// Waits until a non-blocking connect finishes, and reports its outcome.
    private static func waitForConnect(_ descriptor: Int32, timeout: Duration, operation: String) throws(SocketError) {
        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        let milliseconds = Int32(clamping: Int64(timeout.seconds * 1000))
        var ready: Int32
        repeat {
            ready = poll(&poller, 1, milliseconds)
        } while ready < 0 && errno == EINTR
        guard ready > 0 else {
            if ready == 0 { throw SocketError(operation: operation, errorNumber: ETIMEDOUT) }
            throw SocketError(operation: operation, errorNumber: errno)
        }
        var socketError: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &socketError, &length)
        guard socketError == 0 else {
            throw SocketError(operation: operation, errorNumber: socketError)
        }
    }

    /// No Nagle delay (frames are small and latency matters), and a bounded
    /// blocking send, so a server that stops reading cannot hang a writer forever.
    private static func setOptions(_ descriptor: Int32, sendTimeout: Duration) {
        var enabled: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &enabled, socklen_t(MemoryLayout<Int32>.size))
        let parts = sendTimeout.components
        var interval = timeval(tv_sec: Int(parts.seconds), tv_usec: Int(parts.attoseconds / 1_000_000_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Starts the reader thread. `received` gets every chunk in order; `ended`
    /// is called once, after the last chunk, with the error that ended the
    /// connection (nil when the peer closed it or `close()` was called).
    func startReading(received: @escaping @Sendable ([UInt8]) -> Void, ended: @escaping @Sendable (SocketError?) -> Void) {
        let descriptor: Int32? = state.withLock { state in
            guard !state.readerStarted, state.descriptor >= 0 else { return nil }
            state.readerStarted = true
            return state.descriptor
        }
        guard let descriptor else { return }
        let thread = Thread { [self] in
            let error = readUntilEnd(descriptor, received: received)
            state.withLock { state in
                Glibc.close(state.descriptor)
                state.descriptor = -1
            }
            ended(error)
        }
        thread.name = "observatory-client-reader"
        thread.start()
    }

    /// Reads until end of stream or an error.
    private func readUntilEnd(_ descriptor: Int32, received: @Sendable ([UInt8]) -> Void) -> SocketError? {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received(Array(buffer[0..<count]))
                continue
            }
            if count == 0 { return nil }
            let readError = errno
            if readError == EINTR { continue }
            let wasShutDown = state.withLock { $0.isShutDown }
            if wasShutDown { return nil }
            return SocketError(operation: "read from \(endpoint)", errorNumber: readError)
        }
    }

    /// Sends all of `bytes`, or throws: a broken pipe is an error, never a signal.
    func write(_ bytes: [UInt8]) throws(SocketError) {
        let operation = "write to \(endpoint)"
        try state.withLock { (state: inout State) throws(SocketError) in
            guard state.descriptor >= 0, !state.isShutDown else {
                throw SocketError.closed(operation)
            }
            try Self.sendAll(bytes, to: state.descriptor, operation: operation)
        }
    }

    private static func sendAll(_ bytes: [UInt8], to descriptor: Int32, operation: String) throws(SocketError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw -> Int in
                guard let start = raw.baseAddress else { return 0 }
                return send(descriptor, start + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
                continue
            }
            let sendError = errno
            if sent < 0 && sendError == EINTR { continue }
            if sendError == EAGAIN || sendError == EWOULDBLOCK {
                throw SocketError(operation: operation, errorNumber: ETIMEDOUT)
            }
            throw SocketError(operation: operation, errorNumber: sendError)
        }
    }

    /// Shuts the connection down; the reader thread then ends and closes the
    /// descriptor. Safe to call more than once and from any thread.
    func close() {
        state.withLock { state in
            guard state.descriptor >= 0, !state.isShutDown else { return }
            state.isShutDown = true
            shutdown(state.descriptor, Int32(SHUT_RDWR))
        }
    }
}
