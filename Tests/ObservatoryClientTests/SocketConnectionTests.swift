import Foundation
import Observatory
import ObservatorySockets
import ObservatoryTestSupport
import Testing

@testable import ObservatoryClient

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.timeLimit(.minutes(1))) struct SocketConnectionTests {
    private func connect(to peer: LoopbackPeer) async throws -> SocketConnection {
        let connection = try SocketConnection.connect(host: "127.0.0.1", port: peer.port, timeout: .seconds(2))
        try await peer.accept()
        return connection
    }

    /// Sends all of `text` on the non-blocking socket (a few bytes fit at once on loopback).
    private func send(_ text: String, on connection: SocketConnection) throws {
        let bytes = Array(text.utf8)
        let sent = try bytes.withUnsafeBytes { try connection.send($0) }
        #expect(sent == bytes.count)
    }

    /// Reads until `isDone` holds for what was read and how the stream ended (nil: still open).
    private func read(
        from connection: SocketConnection, until isDone: @escaping (String, Bool) -> Bool
    ) async -> (text: String, closed: Bool) {
        let text = Locked("")
        let closed = Locked(false)
        _ = await eventually {
            var buffer = [UInt8](repeating: 0, count: 1024)
            let outcome = buffer.withUnsafeMutableBytes { try? connection.receive(into: $0) }
            switch outcome {
            case .bytes(let count)?: text.withLock { $0 += String(decoding: buffer[0..<count], as: UTF8.self) }
            case .closed?, nil: closed.withLock { $0 = true }
            case .wouldBlock?: break
            }
            return isDone(text.value, closed.value)
        }
        return (text.value, closed.value)
    }

    @Test func bytesFlowBothWaysInOrder() async throws {
        let peer = try LoopbackPeer()
        let connection = try await connect(to: peer)
        defer { connection.close() }
        try send("{\"op\":\"ping\"}\n", on: connection)
        try send("second\n", on: connection)
        #expect(await peer.receive(count: 21) == "{\"op\":\"ping\"}\nsecond\n")
        peer.send("one\n")
        peer.send("two\n")
        let received = await read(from: connection) { text, _ in text == "one\ntwo\n" }
        #expect(received.text == "one\ntwo\n")
    }

    @Test func peerClosingEndsTheStreamWithoutError() async throws {
        let peer = try LoopbackPeer()
        let connection = try await connect(to: peer)
        defer { connection.close() }
        peer.send("last\n")
        peer.closeConnection()
        let received = await read(from: connection) { _, closed in closed }
        #expect(received.text == "last\n" && received.closed)
    }

    @Test func aWriteAfterCloseThrowsNamingTheEndpoint() async throws {
        let peer = try LoopbackPeer()
        let connection = try await connect(to: peer)
        connection.close()
        let error = #expect(throws: SocketError.self) { try send("x", on: connection) }
        #expect(error?.description.contains("write to 127.0.0.1:\(peer.port)") == true)
    }

    @Test func refusedConnectionCarriesErrno() throws {
        let closed = try RefusingPort()
        defer { withExtendedLifetime(closed) {} }
        do {
            _ = try SocketConnection.connect(host: "127.0.0.1", port: closed.port, timeout: .seconds(2))
            Issue.record("connect to a closed port succeeded")
        } catch {
            #expect(error.errorNumber == ECONNREFUSED)
            #expect(error.description.contains("connect to 127.0.0.1:\(closed.port) failed"))
            #expect(error.description.contains("errno \(ECONNREFUSED)"))
        }
    }

    @Test func unresolvableHostIsAResolveError() {
        let error = #expect(throws: SocketError.self) {
            _ = try SocketConnection.connect(host: "no such host.invalid", port: 7070, timeout: .seconds(1))
        }
        #expect(error?.description.contains("cannot resolve the host") == true, "\(String(describing: error))")
    }
}
