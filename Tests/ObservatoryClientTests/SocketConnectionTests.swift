import Foundation
import Observatory
import ObservatorySockets
import Testing

@testable import ObservatoryClient

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct SocketConnectionTests {
    /// Collects what the reader thread hands over.
    final class Inbox: Sendable {
        let text = Locked("")
        let ended = Locked<SocketError??>(nil)

        func waitFor(_ predicate: (String, SocketError??) -> Bool) async -> Bool {
            for _ in 0..<500 {
                let current = text.withLock { $0 }
                let end = ended.withLock { $0 }
                if predicate(current, end) { return true }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return false
        }
    }

    private func connect(to peer: LoopbackPeer, inbox: Inbox) async throws -> SocketConnection {
        let connection = try SocketConnection.connect(
            host: "127.0.0.1", port: peer.port, timeout: .seconds(2), sendTimeout: .seconds(2))
        connection.startReading(
            received: { bytes in inbox.text.withLock { $0 += String(decoding: bytes, as: UTF8.self) } },
            ended: { error in inbox.ended.withLock { $0 = .some(error) } }
        )
        try await peer.accept()
        return connection
    }

    @Test func bytesFlowBothWaysInOrder() async throws {
        let peer = try LoopbackPeer()
        let inbox = Inbox()
        let connection = try await connect(to: peer, inbox: inbox)
        defer { connection.close() }
        try connection.write(Array("{\"op\":\"ping\"}\n".utf8))
        try connection.write(Array("second\n".utf8))
        #expect(await peer.receive(count: 21) == "{\"op\":\"ping\"}\nsecond\n")
        peer.send("one\n")
        peer.send("two\n")
        let receivedBoth = await inbox.waitFor { text, _ in text == "one\ntwo\n" }
        #expect(receivedBoth)
    }

    @Test func peerClosingEndsTheReaderWithoutError() async throws {
        let peer = try LoopbackPeer()
        let inbox = Inbox()
        let connection = try await connect(to: peer, inbox: inbox)
        defer { connection.close() }
        peer.send("last\n")
        peer.closeConnection()
        let receivedLastThenEnd = await inbox.waitFor { text, end in text == "last\n" && end == .some(nil) }
        #expect(receivedLastThenEnd)
    }

    @Test func closeEndsTheReaderAndLaterWritesThrowClosed() async throws {
        let peer = try LoopbackPeer()
        let inbox = Inbox()
        let connection = try await connect(to: peer, inbox: inbox)
        connection.close()
        let ended = await inbox.waitFor { _, end in end == .some(nil) }
        #expect(ended)
        #expect(throws: SocketError.closed("write to 127.0.0.1:\(peer.port)")) {
            try connection.write([1])
        }
    }

    @Test func refusedConnectionCarriesErrno() throws {
        let closed = try LoopbackPeer(listening: false)
        defer { withExtendedLifetime(closed) {} }
        do {
            _ = try SocketConnection.connect(
                host: "127.0.0.1", port: closed.port, timeout: .seconds(2), sendTimeout: .seconds(1))
            Issue.record("connect to a closed port succeeded")
        } catch {
            #expect(error.errorNumber == ECONNREFUSED)
            #expect(error.description.contains("connect to 127.0.0.1:\(closed.port) failed"))
            #expect(error.description.contains("errno \(ECONNREFUSED)"))
        }
    }

    @Test func unresolvableHostIsAResolveError() {
        let error = #expect(throws: SocketError.self) {
            _ = try SocketConnection.connect(
                host: "no such host.invalid", port: 7070, timeout: .seconds(1), sendTimeout: .seconds(1))
        }
        #expect(error?.description.contains("cannot resolve the host") == true, "\(String(describing: error))")
    }
}
