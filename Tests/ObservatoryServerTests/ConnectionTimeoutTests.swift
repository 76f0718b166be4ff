import Foundation
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// The auth timeout and the idle timeout, over real sockets.
@Suite(.timeLimit(.minutes(1))) struct ConnectionTimeoutTests {
    private func waitUntilClosed(_ client: LineClient, whileDoing work: () throws -> Void = {}) throws -> [JSONValue] {
        var frames: [JSONValue] = []
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            try work()
            do {
                guard let line = try client.nextLine(timeout: 0.05) else { return frames }
                frames.append(try JSONValue.parse(line))
            } catch is TestFailure {
                continue
            }
        }
        throw TestFailure(description: "the connection stayed open")
    }

    @Test func unauthenticatedConnectionsAreClosedAndFreeTheirSlots() throws {
        let server = try TestServer {
            $0.auth.tokens = [AccessToken(token: "a-long-enough-token", author: "alice", read: ["*"], write: ["*"])]
            $0.authTimeoutMilliseconds = 300
            $0.limits.maxConnections = 3
        }
        let idle = try (0..<2).map { _ in try server.client() }
        let authenticated = try server.client()
        #expect(try authenticated.request(#"{"op":"hello","token":"a-long-enough-token"}"#)["ok"] == true)
        let refused = try server.client()
        #expect(try refused.next()["error"]?["code"] == "limit_exceeded")
        for client in idle {
            let frames = try waitUntilClosed(client)
            #expect(frames.map { $0["error"]?["code"] } == ["unauthenticated"], "\(frames)")
            #expect(frames.first?["id"] == .null)
        }
        #expect(try authenticated.request(#"{"op":"ping","id":1}"#)["id"] == 1)
        let later = try server.client()
        #expect(try later.request(#"{"op":"hello","token":"a-long-enough-token"}"#)["ok"] == true)
    }

    @Test func withoutAuthenticationTheAuthTimeoutDoesNothing() throws {
        let server = try TestServer {
            $0.authTimeoutMilliseconds = 100
            $0.idleTimeoutMilliseconds = 400
        }
        let watched = try server.client()
        let silent = try server.client()
        // The silent one goes at the idle timeout; the one that keeps talking stays.
        _ = try waitUntilClosed(silent) {
            let reply = try watched.request(#"{"op":"ping"}"#)
            #expect(reply["ok"] == true)
        }
        #expect(try watched.request(#"{"op":"ping","id":2}"#)["id"] == 2)
    }
}
