import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// `GET /events` against a real server: snapshot, changes, resume, reset.
@Suite struct EventStreamEndToEndTests {
    @Test func aStreamShowsTheSnapshotThenEveryChangeWithItsID() throws {
        let server = try TestServer()
        let writer = try server.client()
        _ = try writer.request(#"{"op":"set","key":"sky.color","value":"blue"}"#)
        let epoch = try writer.request(#"{"op":"ping"}"#)["epoch"]?.stringValue ?? ""
        let stream = try WebClient(port: server.port)
        try stream.send("GET /events?prefix=sky. HTTP/1.1\r\nHost: t\r\n\r\n")
        let head = try stream.streamHead()
        #expect(head.headers["Content-Type"] == "text/event-stream; charset=utf-8")
        let snapshot = try stream.streamText(until: "\n\n")
        #expect(snapshot.hasPrefix("event: snapshot\ndata: {\"values\":[{\"key\":\"sky.color\",\"value\":\"blue\""))
        _ = try writer.request(#"{"op":"set","key":"sky.color","value":"red"}"#)
        let update = try stream.streamText(until: "\n\n")
        #expect(update.hasPrefix("id: \(epoch):2\nevent: update\ndata: {\"event\":\"update\",\"key\":\"sky.color\""))
    }

    @Test func lastEventIDResumesAfterThatRevisionAndAnotherEpochResets() throws {
        let server = try TestServer()
        let writer = try server.client()
        for value in 1...3 { _ = try writer.request(#"{"op":"set","key":"k.a","value":\#(value)}"#) }
        let epoch = try writer.request(#"{"op":"ping"}"#)["epoch"]?.stringValue ?? ""
        let resumed = try WebClient(port: server.port)
        try resumed.send("GET /events?prefix=k. HTTP/1.1\r\nLast-Event-ID: \(epoch):1\r\n\r\n")
        _ = try resumed.streamHead()
        let replay = try resumed.streamText(until: "id: \(epoch):3\n")
        #expect(replay.contains("id: \(epoch):2\n"))
        #expect(!replay.contains("snapshot") && !replay.contains("reset"))

        let reset = try WebClient(port: server.port)
        try reset.send("GET /events?prefix=k. HTTP/1.1\r\nLast-Event-ID: other:1\r\n\r\n")
        _ = try reset.streamHead()
        #expect(try reset.streamText(until: "\n\n").hasPrefix("event: reset\ndata: {\"values\":[{\"key\":\"k.a\""))
    }

    @Test func aStreamNeedsTheRightsOfAnObserve() throws {
        let server = try TestServer {
            $0.auth.tokens = [AccessToken(token: "t-sky", author: "sky", read: ["sky.*"], write: [])]
        }
        #expect(try WebClient(port: server.port).request("GET", "/events?prefix=sky.").status == 401)
        #expect(try WebClient(port: server.port).request("GET", "/events?prefix=sea.&token=t-sky").status == 403)
        let allowed = try WebClient(port: server.port)
        try allowed.send("GET /events?prefix=sky.&token=t-sky HTTP/1.1\r\n\r\n")
        let head = try allowed.streamHead()
        #expect(head.status.code == 200)
    }
}
