import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// `GET /v1/history` answers as the `history` op: its query parameters are the
/// op's fields, the reply's fields are the body, errors get the statuses of
/// every REST path.
@Suite struct HistoryRESTTests {
    @Test func theQueryParametersAreTheOpsFieldsAndTheReplyIsTheBody() throws {
        let server = try TestServer()
        let alice = try WebClient(port: server.port)
        for value in ["1", "2", "3"] {
            #expect(try alice.request("PUT", "/v1/keys/sky.k?name=alice", body: value).status == 200)
        }
        let bob = try WebClient(port: server.port)
        #expect(try bob.request("PUT", "/v1/keys/sky.j?name=bob", body: "9").status == 200)

        let all = try alice.request("GET", "/v1/history?prefix=sky.")
        #expect(all.status == 200)
        let changes = try #require(all.json?["changes"]?.arrayValue)
        #expect(changes.map { $0["version"] } == [1, 2, 3, 4])
        #expect(changes.allSatisfy { ($0["at"]?.integerValue ?? 0) > 0 })
        #expect(all.json?["more"] == false && all.json?["revision"] == 4 && all.json?["horizon"] == 0)
        #expect(all.json?["ok"] == nil && all.json?["id"] == nil)

        let newest = try alice.request("GET", "/v1/history?key=sky.k&limit=2&newestFirst=true")
        #expect(newest.json?["changes"]?.arrayValue?.map { $0["new"] } == [3, 2])
        #expect(newest.json?["more"] == true)
        let range = try alice.request("GET", "/v1/history?prefix=sky.&from=1&to=3&author=alice")
        #expect(range.json?["changes"]?.arrayValue?.map { $0["version"] } == [2, 3])
        let session = try #require(changes.last?["session"]?.stringValue)
        let bySession = try alice.request("GET", "/v1/history?prefix=sky.&session=\(session)")
        #expect(bySession.json?["changes"]?.arrayValue?.map { $0["author"] } == ["bob"])
    }

    @Test func badParametersAre400AndForbiddenKeys403() throws {
        let server = try TestServer {
            $0.auth.tokens = [AccessToken(token: "t-guest", author: "guest", read: ["public.*"], write: [])]
        }
        let guest = try WebClient(port: server.port)
        let bearer = "Authorization: Bearer t-guest"
        for target in [
            "/v1/history", "/v1/history?key=public.a&limit=1001", "/v1/history?key=public.a&limit=x",
            "/v1/history?key=public.a&from=-1", "/v1/history?key=public.a&newestFirst=yes",
            "/v1/history?key=public.a&prefix=public.",
        ] {
            let response = try guest.request("GET", target, headers: [bearer])
            #expect(response.status == 400, "\(target)")
            #expect(response.json?["error"]?["code"] == "bad_request", "\(target)")
        }
        #expect(try guest.request("GET", "/v1/history?key=secret.a", headers: [bearer]).status == 403)
        #expect(try guest.request("GET", "/v1/history?key=public.a", headers: [bearer]).status == 200)
        #expect(try WebClient(port: server.port).request("GET", "/v1/history?key=public.a").status == 401)
        #expect(try guest.request("POST", "/v1/history?key=public.a", headers: [bearer]).status == 405)
    }
}
