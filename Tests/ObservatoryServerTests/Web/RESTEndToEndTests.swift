import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// The web face's HTTP paths against a real server over loopback sockets.
@Suite struct RESTEndToEndTests {
    @Test func restWritesReadsListsAndDeletesOverOneKeptAliveConnection() throws {
        let server = try TestServer()
        let client = try WebClient(port: server.port)
        let set = try client.request("PUT", "/v1/keys/sky.color?name=alice", body: #""red""#)
        #expect(set.status == 200)
        #expect(set.json == ["key": "sky.color", "version": 1, "changed": true])
        let get = try client.request("GET", "/v1/keys/sky.color")
        #expect(get.json?["value"] == "red")
        #expect(get.json?["author"] == "alice")
        let sessionOfWrite = get.json?["session"]
        let list = try client.request("GET", "/v1/keys?prefix=sky.&limit=10")
        #expect(list.json == ["keys": [["key": "sky.color", "version": 1]], "more": false])
        let conflict = try client.request("DELETE", "/v1/keys/sky.color", headers: ["If-Match: \"7\""])
        #expect(conflict.status == 409)
        #expect(conflict.json?["error"]?["version"] == 1)
        let deleted = try client.request("DELETE", "/v1/keys/sky.color", headers: ["If-Match: 1"])
        #expect(deleted.json == ["key": "sky.color", "version": 2])
        #expect(try client.request("GET", "/v1/keys/sky.color").status == 404)
        // The same connection all along: one session.
        let again = try client.request("PUT", "/v1/keys/sky.mood", body: "1")
        #expect(again.status == 200)
        #expect(try client.request("GET", "/v1/keys/sky.mood").json?["session"] == sessionOfWrite)
    }

    @Test func headAnswersWithGetsHeadersAndSendsNoBodyOnTheWire() throws {
        let server = try TestServer()
        let client = try WebClient(port: server.port)
        _ = try client.request("PUT", "/v1/keys/sky.color?name=alice", body: #""red""#)
        let get = try client.request("GET", "/v1/keys/sky.color")
        let head = try client.request("HEAD", "/v1/keys/sky.color")
        #expect(head.status == 200)
        #expect(head.head.headers["Content-Length"] == String(get.body.count))
        #expect(head.body.isEmpty)
        let health = try client.request("HEAD", "/healthz")
        #expect(health.status == 200 && health.head.headers["Content-Length"] == "2")
        let events = try client.request("HEAD", "/events?key=sky.color")
        #expect(events.status == 405 && events.head.headers["Allow"] == "GET")
        // Had a HEAD response carried a body, its bytes would have broken this parse.
        let fresh = try WebClient(port: server.port)
        _ = try fresh.request("HEAD", "/")
        #expect(try fresh.request("GET", "/healthz").text == "ok")
    }

    @Test func aValueComesBackAsTheBytesItWasSetIn() throws {
        let server = try TestServer()
        let client = try WebClient(port: server.port)
        let value = #"{"zebra":2.50,"apple":[1e3,"\u00e9"]}"#
        #expect(try client.request("PUT", "/v1/keys/sky.shape", body: value).status == 200)
        let get = try client.request("GET", "/v1/keys/sky.shape")
        #expect(get.status == 200)
        #expect(get.text.contains(#""value":\#(value)"#), "\(get.text)")
        #expect(!get.text.contains(#""ok""#) && !get.text.contains(#""id""#))
        let missing = try client.request("GET", "/v1/keys/sky.nothing")
        #expect(missing.status == 404 && missing.json?["error"]?["code"] == "not_found")
    }

    @Test func anIdempotencyKeyMakesARetriedWriteADuplicate() throws {
        let server = try TestServer()
        let client = try WebClient(port: server.port)
        let first = try client.request("PUT", "/v1/keys/a", headers: ["Idempotency-Key: r-1"], body: "1")
        let second = try client.request("PUT", "/v1/keys/a", headers: ["Idempotency-Key: r-1"], body: "2")
        #expect(first.json?["version"] == second.json?["version"])
        #expect(second.json?["duplicate"] == true)
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let server = try TestServer()
        let client = try WebClient(port: server.port)
        try client.send(
            "PUT /v1/keys/p HTTP/1.1\r\nContent-Length: 1\r\n\r\n5GET /healthz HTTP/1.1\r\n\r\n"
                + "GET /v1/keys/p HTTP/1.1\r\n\r\nGET /nowhere HTTP/1.1\r\n\r\n")
        let statuses = try (0..<4).map { _ in try client.nextResponse() }
        #expect(statuses.map { $0?.status } == [200, 200, 200, 404])
        #expect(statuses[1]?.text == "ok")
        #expect(statuses[2]?.json?["value"] == 5)
    }

    @Test func errorsGetTheirStatusesAndCloseWhereTheProtocolSaysSo() throws {
        let server = try TestServer {
            $0.limits.maxFrameBytes = 1_000
            $0.limits.maxValueBytes = 500
        }
        let client = try WebClient(port: server.port)
        #expect(try client.request("PUT", "/v1/keys/bad%20key", body: "1").status == 400)
        #expect(try client.request("PUT", "/v1/keys/a", body: "not json").status == 400)
        let tooLarge = try client.request("PUT", "/v1/keys/a", body: String(repeating: "1", count: 1_001))
        #expect(tooLarge.status == 413)
        #expect(try client.nextResponse() == nil)

        let methods = try WebClient(port: server.port)
        let notAllowed = try methods.request("PATCH", "/v1/keys/a")
        #expect(notAllowed.status == 405)
        #expect(notAllowed.head.headers["Allow"] == "GET, HEAD, PUT, DELETE")
        #expect(try methods.nextResponse() == nil)

        let header = try WebClient(port: server.port)
        try header.send("GET /healthz HTTP/1.1\r\nbroken header\r\n\r\n")
        #expect(try header.nextResponse()?.status == 400)
        #expect(try header.nextResponse() == nil)

        let large = try WebClient(port: server.port)
        try large.send("GET /healthz HTTP/1.1\r\nX-Long: \(String(repeating: "x", count: 17_000))\r\n\r\n")
        #expect(try large.nextResponse()?.status == 431)
    }

    @Test func aLineProtocolClientIsStillServedOnTheSamePort() throws {
        let server = try TestServer()
        let client = try server.client()
        let reply = try client.request("hello world")
        #expect(reply["error"]?["code"] == "bad_frame")
        #expect(try client.request(#"{"op":"ping","id":1}"#)["ok"] == true)
    }

    @Test func tokensAreCheckedAsOnTheLineProtocol() throws {
        let server = try TestServer {
            $0.auth.tokens = [
                AccessToken(token: "t-alice", author: "alice", read: ["*"], write: ["sky.*"])
            ]
        }
        #expect(try WebClient(port: server.port).request("GET", "/v1/keys/sky.a").status == 401)
        let wrong = try WebClient(port: server.port)
        #expect(try wrong.request("GET", "/v1/keys/sky.a", headers: ["Authorization: Bearer nope"]).status == 401)
        #expect(try wrong.nextResponse() == nil)
        let alice = try WebClient(port: server.port)
        let bearer = "Authorization: Bearer t-alice"
        #expect(try alice.request("PUT", "/v1/keys/sea.a", headers: [bearer], body: "1").status == 403)
        let written = try alice.request("PUT", "/v1/keys/sky.a?name=ignored", headers: [bearer], body: "1")
        #expect(written.status == 200)
        #expect(try alice.request("GET", "/v1/keys/sky.a", headers: [bearer]).json?["author"] == "alice")
        #expect(try WebClient(port: server.port).request("GET", "/healthz").status == 200)
    }

    @Test func theLivePageAndItsModuleAreServed() throws {
        let server = try TestServer()
        let client = try WebClient(port: server.port)
        let page = try client.request("GET", "/?prefix=sky.")
        #expect(page.head.headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(page.text.contains("observatory.js"))
        let script = try client.request("GET", "/observatory.js")
        #expect(script.head.headers["Content-Type"] == "text/javascript; charset=utf-8")
        #expect(script.text.contains("export"))
    }
}
