import Foundation
import Observatory

#if canImport(Glibc)
    import Glibc
#endif

/// A raw TCP server on 127.0.0.1, at a port the system picks, that accepts one
/// connection, for testing the client socket without the real server.
final class LoopbackPeer: Sendable {
    /// How long a wait for the client lasts. It bounds a hang, it does not
    /// measure speed: a loaded CI machine can stall for seconds.
    static let patience: Double = 20

    let port: Int
    private let listener: Int32
    private let accepted = Locked<Int32>(-1)
    /// Connections made by ``fillBacklog()``, never accepted.
    private let waiting = Locked<[Int32]>([])

    /// Binds a port the system picks and listens on it, with room for `backlog`
    /// connections not yet accepted (at least one, on Linux).
    init(backlog: Int32 = 4) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, backlog) == 0 else { throw PeerError.setupFailed(errno) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        Glibc.close(listener)
        accepted.withLock { if $0 >= 0 { Glibc.close($0) } }
        waiting.withLock { for descriptor in $0 { Glibc.close(descriptor) } }
    }

    enum PeerError: Error {
        case setupFailed(Int32)
        case acceptFailed(Int32)
    }

    /// Waits (up to 5 s) for the client to connect, on a thread of its own,
    /// so that the blocking wait never holds a cooperative or Dispatch thread.
    func accept() async throws {
        try await offCooperativePool { try self.acceptBlocking() }
    }

    /// Reads one line (without its LF), waiting up to `patience`; nil on timeout or close.
    func receiveLine() async -> String? {
        await offCooperativePool { self.receiveLineBlocking() }
    }

    private func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    private func offCooperativePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    private func acceptBlocking() throws {
        var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(Self.patience * 1_000)) == 1 else { throw PeerError.acceptFailed(errno) }
        let connection = Glibc.accept(listener, nil, nil)
        guard connection >= 0 else { throw PeerError.acceptFailed(errno) }
        // A new connection replaces the last one, which the client has left.
        accepted.withLock { descriptor in
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = connection
        }
    }

    /// Fills the listener's backlog with a connection nobody accepts (made
    /// with a backlog of 0): the kernel then drops every further attempt
    /// unanswered, as a host that never answers would.
    func fillBacklog() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard descriptor >= 0, connected == 0 else { throw PeerError.setupFailed(errno) }
        waiting.withLock { $0.append(descriptor) }
        // The connection waits in the accept queue once the listener reads as ready.
        var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(Self.patience * 1_000)) == 1 else { throw PeerError.setupFailed(errno) }
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        accepted.withLock { descriptor in
            _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    /// Reads until `count` bytes arrived or `patience` passed.
    func receive(count: Int) async -> String {
        await offCooperativePool { self.receiveBlocking(count: count) }
    }

    private func receiveBlocking(count: Int) -> String {
        let descriptor = accepted.withLock { $0 }
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(Self.patience)
        while received.count < count && Date() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) == 1 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let read = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard read > 0 else { break }
            received += buffer[0..<read]
        }
        return String(decoding: received, as: UTF8.self)
    }

    private func receiveLineBlocking() -> String? {
        let descriptor = accepted.withLock { $0 }
        var received: [UInt8] = []
        let deadline = Date().addingTimeInterval(Self.patience)
        while Date() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) == 1 else { continue }
            var byte: UInt8 = 0
            guard recv(descriptor, &byte, 1, 0) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: received, as: UTF8.self) }
            received.append(byte)
        }
        return nil
    }

    func closeConnection() {
        accepted.withLock { descriptor in
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
        }
    }
}
