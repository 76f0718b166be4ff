import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// `POST /v1/batch` (docs/protocol.md, "HTTP on the same port"): a batch over HTTP.
@Suite struct RESTBatchTests {
    @Test func aPostedBatchAnswersAsBatchWithoutOkAndId() throws {
        let server = try TestServer()
        let client = try WebClient(port: server.port)
        let body = #"{"ops":[{"op":"set","key":"a","value":1},{"op":"set","key":"b","value":[2]}]}"#
        let response = try client.request("POST", "/v1/batch", body: body)
        #expect(response.status == 200, "\(response.text)")
        let revision = try #require(response.json?["revision"]?.integerValue)
        #expect(
            response.json?["results"]
                == [
                    ["key": "a", "version": .integer(revision), "changed": true],
                    ["key": "b", "version": .integer(revision), "changed": true],
                ])
        #expect(!response.text.contains(#""ok""#) && !response.text.contains(#""id""#))
        #expect(try client.request("GET", "/v1/keys/b").json?["value"] == [2])
    }

    @Test func theChangesOfABatchAreCountedEachAndItsChecksAndEqualSetsNot() throws {
        let server = try TestServer()
        let client = try WebClient(port: server.port)
        for (key, value) in [("same", "1"), ("gone", "2"), ("checked", "0")] {
            _ = try client.request("PUT", "/v1/keys/\(key)", body: value)
        }
        let body =
            #"{"ops":[{"op":"set","key":"a","value":1},{"op":"set","key":"same","value":1},"#
            + #"{"op":"check","key":"checked","ifVersion":3},{"op":"delete","key":"gone"}]}"#
        let response = try client.request("POST", "/v1/batch", body: body)
        #expect(response.status == 200, "\(response.text)")
        let metrics = try client.request("GET", "/metrics").text
        #expect(metrics.contains("\nobservatory_changes_total 5\n"), "three single sets, then a set and a delete")
    }

    @Test func aFailedOperationIs409WithItsIndex() throws {
        let server = try TestServer()
        let client = try WebClient(port: server.port)
        let body = #"{"ops":[{"op":"set","key":"a","value":1},{"op":"check","key":"b","ifVersion":3}]}"#
        let response = try client.request("POST", "/v1/batch", body: body)
        #expect(response.status == 409, "\(response.text)")
        #expect(response.json?["error"]?["index"] == 1 && response.json?["error"]?["version"] == 0)
        #expect(try client.request("GET", "/v1/keys/a").status == 404, "nothing applied")
    }

    @Test func anIdempotencyKeyMakesARetriedBatchADuplicate() throws {
        let server = try TestServer()
        let client = try WebClient(port: server.port)
        let body = #"{"ops":[{"op":"set","key":"a","value":1}]}"#
        let first = try client.request("POST", "/v1/batch", headers: ["Idempotency-Key: b-1"], body: body)
        let second = try client.request("POST", "/v1/batch", headers: ["Idempotency-Key: b-1"], body: body)
        #expect(first.json?["revision"] == second.json?["revision"])
        #expect(second.json?["duplicate"] == true)
    }

    @Test func aBodyWithoutOpsIs400AndOtherMethodsAre405() throws {
        let server = try TestServer()
        let client = try WebClient(port: server.port)
        let noOps = try client.request("POST", "/v1/batch", body: #"{"op":[]}"#)
        #expect(noOps.status == 400 && noOps.json?["error"]?["code"] == "bad_request", "\(noOps.text)")
        let notObject = try client.request("POST", "/v1/batch", body: "[1]")
        #expect(notObject.status == 400)
        let get = try client.request("GET", "/v1/batch")
        #expect(get.status == 405)
    }
}
