import Foundation
import ObservatoryTestSupport
import Testing

@testable import ObservatoryServer
@testable import ObservatorySockets

/// Many HTTP clients that send their heads slowly must not hold up anyone else.
@Suite struct SlowHTTPClientsTests {
    static let slowClients = 1_000
    static let seconds = 3

    @Test(.timeLimit(.minutes(2)))
    func aThousandSlowHTTPClientsDoNotStallALineClientsPings() throws {
        let server = try TestServer()
        var slow: [StreamSocket] = []
        defer { for socket in slow { socket.close() } }
        for _ in 0..<Self.slowClients {
            let socket = try StreamSocket.connect(host: "127.0.0.1", port: server.port)
            try socket.sendAll(Array("GET /healthz HTTP/1.1\r\n".utf8))
            slow.append(socket)
        }
        let line = try server.client()
        var worst = 0.0
        var pings = 0
        for second in 0..<Self.seconds {
            // One header line per second from every slow client: the pings in
            // between take the second, so they pace the test as well as measure it.
            for socket in slow { try socket.sendAll(Array("X-Slow-\(second): yes\r\n".utf8)) }
            let end = Date().addingTimeInterval(1)
            while Date() < end {
                let start = Date()
                let reply = try line.request(#"{"op":"ping"}"#)
                #expect(reply["ok"] == true)
                worst = max(worst, Date().timeIntervalSince(start))
                pings += 1
            }
        }
        #expect(server.server.connectionCount == Self.slowClients + 1)
        #expect(worst < 0.5, "the slowest ping took \(worst) s of \(pings)")
        // Their requests complete and are answered once their heads end.
        for socket in slow { try socket.sendAll(Array("\r\n".utf8)) }
        for socket in slow.prefix(20) {
            #expect(socket.waitReadable(timeoutMilliseconds: 20_000))
            var bytes = [UInt8](repeating: 0, count: 512)
            let received = try bytes.withUnsafeMutableBytes { try socket.receive(into: $0) }
            guard case .bytes(let count) = received else {
                Issue.record("no response")
                continue
            }
            #expect(String(decoding: bytes[..<count], as: UTF8.self).hasPrefix("HTTP/1.1 200 OK"))
        }
    }
}
