import Foundation
import Testing

/// docs/protocol.md, "Requests and replies": ids echoed verbatim, `"id":null` rules,
/// one reply per request in request order, unknown fields ignored, the
/// connection kept open after errors.
@Suite struct RequestReplyConformanceTests {
    @Test func stringIDsAreEchoedVerbatim() throws {
        try withServer { server in
            let client = try server.connect()
            for id in ["abc", "", "7", "ü-😀-\u{1}", "with \"quotes\" and \\ and /", String(repeating: "x", count: 300)]
            {
                try client.send(["op": "ping", "id": id])
                let reply = try client.nextFrame()
                #expect(reply.ok == true)
                #expect(reply.id == .string(id), "sent id \(id), got \(reply)")
            }
        }
    }

    @Test func integerIDsAreEchoedVerbatimIncludingInt64Extremes() throws {
        try withServer { server in
            let client = try server.connect()
            for text in ["0", "-5", "42", "9223372036854775807", "-9223372036854775808"] {
                try client.send(raw: "{\"op\":\"ping\",\"id\":\(text)}\n")
                let reply = try client.nextFrame()
                #expect(reply.ok == true, "\(reply)")
                #expect(reply.id == .integer(Int64(text) ?? 0), "sent id \(text), got \(reply)")
                #expect(reply.text.contains("\"id\":\(text)"), "id not echoed verbatim: \(reply)")
            }
        }
    }

    @Test func missingOpGetsBadRequestEchoingStringOrIntegerID() throws {
        try withServer { server in
            let client = try server.connect()
            let cases: [(String, JSONTree)] = [
                ("{\"id\":\"no-op\"}", .string("no-op")),
                ("{\"id\":17,\"key\":\"k\"}", .integer(17)),
                ("{\"op\":5,\"id\":\"numeric-op\"}", .string("numeric-op")),
                ("{\"op\":null,\"id\":18}", .integer(18)),
                ("{\"op\":[\"get\"],\"id\":19}", .integer(19)),
                ("{\"op\":{\"name\":\"get\"},\"id\":\"obj\"}", .string("obj")),
                ("{\"op\":true,\"id\":20}", .integer(20)),
            ]
            for (text, id) in cases {
                try client.send(raw: text + "\n")
                let reply = try client.nextFrame()
                #expect(reply.ok == false, "\(text) -> \(reply)")
                #expect(reply.errorCode == "bad_request", "\(text) -> \(reply)")
                #expect(reply.id == id, "\(text) -> \(reply)")
            }
        }
    }

    @Test func missingOpWithIDOfAnotherTypeGetsNullID() throws {
        try withServer { server in
            let client = try server.connect()
            for id in ["1.5", "true", "[1]", "{\"a\":1}"] {
                let text = "{\"id\":\(id)}"
                try client.send(raw: text + "\n")
                let reply = try client.nextFrame()
                #expect(reply.errorCode == "bad_request", "\(text) -> \(reply)")
                #expect(reply.id == .null, "\(text) -> \(reply)")
            }
        }
    }

    @Test func validOpWithIDOfAnotherTypeGetsBadRequestWithNullID() throws {
        try withServer { server in
            let client = try server.connect()
            for id in ["1.5", "false", "[7]", "{\"n\":7}", "-0.25"] {
                let text = "{\"op\":\"ping\",\"id\":\(id)}"
                try client.send(raw: text + "\n")
                let reply = try client.nextFrame()
                #expect(reply.ok == false, "\(text) -> \(reply)")
                #expect(reply.errorCode == "bad_request", "\(text) -> \(reply)")
                #expect(reply.id == .null, "\(text) -> \(reply)")
                #expect(reply.object.keys.contains("id"), "the reply must carry \"id\":null: \(reply)")
            }
        }
    }

    @Test func explicitNullIDIsBadRequestWithNullID() throws {
        try withServer { server in
            let client = try server.connect()
            try client.send(raw: "{\"op\":\"ping\",\"id\":null}\n")
            let reply = try client.nextFrame()
            #expect(reply.errorCode == "bad_request", "null is neither a string nor an integer: \(reply)")
            #expect(reply.id == .null, "\(reply)")
        }
    }

    @Test func unknownOpGetsUnknownOpEchoingIDAndConnectionStaysOpen() throws {
        try withServer { server in
            let client = try server.connect()
            let reply = try client.call(["op": "fly", "key": "k"])
            #expect(reply.ok == false)
            #expect(reply.errorCode == "unknown_op", "\(reply)")
            #expect(reply.id == .integer(1))
            #expect(try client.call(["op": "ping"]).ok == true)
        }
    }

    @Test func failureRepliesCarryCodeAndHumanReadableMessage() throws {
        try withServer { server in
            let client = try server.connect()
            let reply = try client.call(["op": "get", "key": "missing"])
            #expect(reply.ok == false)
            #expect(reply["ok"] == .bool(false))
            #expect(reply.errorCode == "not_found")
            let message = try #require(reply.errorMessage, "error.message must be a string: \(reply)")
            #expect(!message.isEmpty)
        }
    }

    @Test func unknownFieldsInRequestsAreIgnored() throws {
        try withServer { server in
            let client = try server.connect()
            let set = try client.call(
                fields: #""op":"set","key":"k","value":1,"extra":{"x":[1,2]},"flag":true,"z":null"#)
            #expect(set.ok == true, "\(set)")
            let get = try client.call(fields: #""op":"get","key":"k","prefix":"ignored.","since":3"#)
            #expect(get.ok == true, "\(get)")
            #expect(get["value"] == .integer(1))
            let ping = try client.call(fields: #""op":"ping","key":"whatever","value":[1]"#)
            #expect(ping.ok == true, "\(ping)")
            let hello = try client.call(fields: #""op":"hello","name":"n","features":["x"]"#)
            #expect(hello.ok == true, "\(hello)")
        }
    }

    @Test func everyRequestGetsExactlyOneReplyInRequestOrderEvenWhenErrorsInterleave() throws {
        try withServer { server in
            let client = try server.connect()
            let lines = [
                #"{"op":"set","key":"order.a","value":1,"id":"a"}"#,
                #"{"op":"get","key":"nope","id":"b"}"#,
                #"{"op":"fly","id":"c"}"#,
                #"{"op":"set","key":"","value":1,"id":"d"}"#,
                #"{"op":"list","id":"e"}"#,
                #"{"op":"set","key":"order.a","value":2,"ifVersion":999,"id":"f"}"#,
                #"{"op":"observe","key":"order.a","id":"g"}"#,
                #"{"op":"delete","key":"order.a","id":"h"}"#,
                #"{"op":"ping","id":"i"}"#,
            ]
            try client.send(raw: lines.joined(separator: "\n") + "\n")
            var replyIDs: [String] = []
            for _ in 0..<40 where replyIDs.count < lines.count {
                let frame = try client.nextFrame()
                if frame.isEvent { continue }
                replyIDs.append(frame.id?.string ?? "\(frame)")
            }
            #expect(replyIDs == ["a", "b", "c", "d", "e", "f", "g", "h", "i"])
            let extra = try client.frames(arrivingWithin: .milliseconds(200)).filter { !$0.isEvent }
            #expect(extra.isEmpty, "a request got more than one reply: \(extra)")
        }
    }

    @Test func connectionStaysOpenAfterEveryNonFatalError() throws {
        try withServer({ $0.limits.maxValueBytes = 64 }) { server in
            let client = try server.connect()
            _ = try client.call(["op": "set", "key": "there", "value": 1])
            let failing: [(String, String)] = [
                ("not json", "bad_frame"),
                ("[1]", "bad_frame"),
                (#"{"id":"x"}"#, "bad_request"),
                (#"{"op":"fly","id":"x"}"#, "unknown_op"),
                (#"{"op":"get","id":"x"}"#, "bad_request"),
                (#"{"op":"get","key":"has space","id":"x"}"#, "invalid_key"),
                (
                    #"{"op":"set","key":"big","value":"\#(String(repeating: "v", count: 200))","id":"x"}"#,
                    "value_too_large"
                ),
                (#"{"op":"get","key":"missing","id":"x"}"#, "not_found"),
                (#"{"op":"delete","key":"missing","id":"x"}"#, "not_found"),
                (#"{"op":"set","key":"there","value":2,"ifVersion":12345,"id":"x"}"#, "conflict"),
            ]
            for (line, code) in failing {
                try client.send(raw: line + "\n")
                let reply = try client.nextFrame()
                #expect(reply.errorCode == code, "\(line) -> \(reply)")
                let ping = try client.call(["op": "ping"])
                #expect(ping.ok == true, "connection unusable after \(code)")
            }
        }
    }
}
