import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Connections over `limits.maxConnections` are refused in the dialect their client speaks.
@Suite struct OverLimitEndToEndTests {
    @Test func anHTTPClientOverTheLimitGets503WithRetryAfterAndAClose() throws {
        let server = try TestServer { $0.limits.maxConnections = 1 }
        let holder = try server.client()
        #expect(try holder.request(#"{"op":"ping"}"#)["ok"] == true)
        let refused = try WebClient(port: server.port)
        let response = try refused.request("GET", "/healthz")
        #expect(response.status == 503)
        #expect(response.head.headers["Retry-After"] == "1")
        #expect(response.json?["error"]?["code"] == "limit_exceeded")
        #expect(response.json?["error"]?["message"]?.stringValue?.contains("limits.maxConnections") == true)
        #expect(try refused.nextResponse() == nil)
        // The slot holder is untouched, and a line client over the limit still gets the frame.
        #expect(try holder.request(#"{"op":"ping"}"#)["ok"] == true)
        let lineClient = try server.client()
        try lineClient.send(#"{"op":"ping"}"#)
        #expect(try lineClient.readUntilClosed().map { $0["error"]?["code"] } == ["limit_exceeded"])
    }
}
