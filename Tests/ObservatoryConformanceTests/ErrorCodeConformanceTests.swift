import Foundation
import Testing

/// docs/protocol.md, "Values, keys, ..." and "Error codes": every error a client can
/// cause without authentication, with the id echoed.
@Suite struct ErrorCodeConformanceTests {
    /// Keys as JSON string literals (escapes included) that docs/protocol.md forbids.
    static let invalidKeyLiterals = [
        #""""#, // empty
        "\"" + String(repeating: "k", count: 257) + "\"", // 257 bytes
        "\"" + String(repeating: "€", count: 86) + "\"", // 86 characters but 258 bytes
        #""has space""#,
        #""has\ttab""#,
        #""has\nnewline""#,
        #""has\rreturn""#,
        #""control\u0001char""#,
        #""nul\u0000char""#,
        #""delete\u007fchar""#,
        #""c1\u0085control""#,
        #"" leading""#,
        #""trailing ""#,
    ]

    @Test(arguments: invalidKeyLiterals)
    func keysThatBreakTheRulesGetInvalidKeyForEveryKeyedOp(literal: String) throws {
        try withServer { server in
            let client = try server.connect()
            let requests = [
                #""op":"set","value":1,"key":"# + literal,
                #""op":"get","key":"# + literal,
                #""op":"delete","key":"# + literal,
                #""op":"observe","key":"# + literal,
            ]
            for fields in requests {
                let reply = try client.call(fields: fields)
                #expect(reply.ok == false, "\(fields) -> \(reply)")
                #expect(reply.errorCode == "invalid_key", "\(fields) -> \(reply)")
            }
        }
    }

    @Test func keysOfOneTo256BytesOfPrintableUnicodeAreValid() throws {
        try withServer { server in
            let client = try server.connect()
            let keys = [
                "k", String(repeating: "k", count: 256), String(repeating: "é", count: 128),
                "kitchen.light.on", "ü.😀.日本", "a-b_c:d/e@f#g", "\"quoted\"", "back\\slash",
            ]
            for key in keys {
                let set = try client.call(["op": "set", "key": key, "value": true])
                #expect(set.ok == true, "\(key) (\(key.utf8.count) bytes) -> \(set)")
                #expect(set.string("key") == key)
                let get = try client.call(["op": "get", "key": key])
                #expect(get.string("key") == key, "\(get)")
            }
        }
    }

    @Test func anEscapedKeyNamesTheSameKeyAsItsRawUTF8() throws {
        try withServer { server in
            let client = try server.connect()
            let set = try client.call(fields: #""op":"set","key":"caf\u00e9.\ud83d\ude00","value":1"#)
            #expect(set.ok == true, "\(set)")
            let get = try client.call(["op": "get", "key": "café.😀"])
            #expect(get["value"] == .integer(1), "\(get)")
        }
    }

    @Test func prefixWithWhitespaceIsInvalidKeyButEmptyListPrefixIsAllowed() throws {
        try withServer { server in
            let client = try server.connect()
            let observe = try client.call(["op": "observe", "prefix": "bad prefix"])
            #expect(observe.errorCode == "invalid_key", "\(observe)")
            let list = try client.call(["op": "list", "prefix": ""])
            #expect(list.ok == true, "\(list)")
        }
    }

    @Test func valueLargerThanMaxValueBytesGetsValueTooLarge() throws {
        try withServer({ $0.limits.maxValueBytes = 100 }) { server in
            let client = try server.connect()
            let large = try client.call(["op": "set", "key": "big", "value": String(repeating: "x", count: 200)])
            #expect(large.errorCode == "value_too_large", "\(large)")
            #expect(large.id == .integer(1))
            let nested = try client.call(["op": "set", "key": "big", "value": Array(repeating: 12_345, count: 40)])
            #expect(nested.errorCode == "value_too_large", "\(nested)")
            let small = try client.call(["op": "set", "key": "big", "value": String(repeating: "x", count: 50)])
            #expect(small.ok == true, "\(small)")
            let get = try client.call(["op": "get", "key": "big"])
            #expect(
                get["value"] == .string(String(repeating: "x", count: 50)), "the refused sets must not change the value"
            )
        }
    }

    @Test func defaultMaxValueBytesIsHalfAMebibyte() throws {
        try withServer { server in
            let client = try server.connect()
            let over = try client.call(["op": "set", "key": "big", "value": String(repeating: "y", count: 524_289)])
            #expect(over.errorCode == "value_too_large", "\(over.text.prefix(200))")
            let under = try client.call(["op": "set", "key": "big", "value": String(repeating: "y", count: 500_000)])
            #expect(under.ok == true, "\(under.text.prefix(200))")
        }
    }

    @Test func missingOrIllTypedFieldsGetBadRequest() throws {
        try withServer { server in
            let client = try server.connect()
            let requests = [
                #""op":"get""#,
                #""op":"get","key":5"#,
                #""op":"get","key":null"#,
                #""op":"set","key":"k""#,
                #""op":"set","value":1"#,
                #""op":"set","key":["k"],"value":1"#,
                #""op":"set","key":"k","value":1,"ifVersion":"3""#,
                #""op":"set","key":"k","value":1,"ifVersion":1.5"#,
                #""op":"delete""#,
                #""op":"delete","key":"k","ifVersion":true"#,
                #""op":"observe""#,
                #""op":"observe","key":7"#,
                #""op":"observe","prefix":{}"#,
                #""op":"unobserve""#,
                #""op":"list","prefix":3"#,
            ]
            for fields in requests {
                let reply = try client.call(fields: fields)
                #expect(reply.ok == false, "\(fields) -> \(reply)")
                #expect(reply.errorCode == "bad_request", "\(fields) -> \(reply)")
            }
        }
    }

    @Test(arguments: [#""op":"hello","name":42"#, #""op":"hello","protocol":"1""#, #""op":"hello","token":7"#])
    func aFailedHelloGetsBadRequestAndClosesTheConnection(fields: String) throws {
        try withServer { server in
            let client = try server.connect()
            try client.send(raw: "{\"id\":\"h\",\(fields)}\n")
            let reply = try client.nextFrame()
            #expect(reply.errorCode == "bad_request", "\(fields) -> \(reply)")
            #expect(reply.id == .string("h"))
            // "The connection stays open after every error except frame_too_large and a failed hello."
            #expect(client.isClosedByServer(within: .seconds(2)), "the connection stayed open after a failed hello")
        }
    }

    @Test func getOrDeleteOfMissingKeyGetsNotFound() throws {
        try withServer { server in
            let client = try server.connect()
            let get = try client.call(["op": "get", "key": "absent"])
            #expect(get.errorCode == "not_found", "\(get)")
            #expect(get.id == .integer(1))
            let delete = try client.call(["op": "delete", "key": "absent"])
            #expect(delete.errorCode == "not_found", "\(delete)")
            _ = try client.call(["op": "set", "key": "was", "value": 1])
            _ = try client.call(["op": "delete", "key": "was"])
            let again = try client.call(["op": "delete", "key": "was"])
            #expect(again.errorCode == "not_found", "\(again)")
        }
    }

    @Test func creatingMoreKeysThanMaxKeysGetsLimitExceededButChangesStillWork() throws {
        try withServer({ $0.limits.maxKeys = 2 }) { server in
            let client = try server.connect()
            #expect(try client.call(["op": "set", "key": "one", "value": 1]).ok == true)
            #expect(try client.call(["op": "set", "key": "two", "value": 2]).ok == true)
            let third = try client.call(["op": "set", "key": "three", "value": 3])
            #expect(third.errorCode == "limit_exceeded", "\(third)")
            #expect(try client.call(["op": "set", "key": "two", "value": 22]).ok == true)
        }
    }

    @Test func observingMoreThanMaxObservationsGetsLimitExceeded() throws {
        try withServer({ $0.limits.maxObservationsPerConnection = 2 }) { server in
            let client = try server.connect()
            #expect(try client.call(["op": "observe", "key": "a"]).ok == true)
            #expect(try client.call(["op": "observe", "prefix": "b."]).ok == true)
            let third = try client.call(["op": "observe", "key": "c"])
            #expect(third.errorCode == "limit_exceeded", "\(third)")
        }
    }

    @Test func connectionBeyondMaxConnectionsGetsLimitExceededWithNullIDAndClose() throws {
        try withServer({ $0.limits.maxConnections = 1 }) { server in
            let first = try server.connect()
            #expect(try first.call(["op": "ping"]).ok == true)
            let second = try server.connect()
            let frames = try second.framesUntilClosed()
            let refusal = try #require(frames.first, "no reply before the close")
            #expect(refusal.errorCode == "limit_exceeded", "\(refusal)")
            #expect(refusal.id == .null)
            #expect(try first.call(["op": "ping"]).ok == true)
        }
    }
}
