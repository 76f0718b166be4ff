import Foundation
import Testing

/// docs/protocol.md, "Values": stored and returned as sent; Int64 exactly, doubles
/// that round-trip, all of Unicode, any nesting.
@Suite struct ValueFidelityConformanceTests {
    /// Values as the JSON text a client sends.
    static let valueTexts = [
        "9223372036854775807",
        "-9223372036854775808",
        "9007199254740993",
        "0",
        "-1",
        "0.1",
        "1e-300",
        "-2.5e+300",
        "1.7976931348623157e308",
        "5e-324",
        "123456789.123456789",
        "3.141592653589793",
        "null",
        "true",
        "false",
        #""""#,
        #""plain""#,
        #""héllo wörld 日本語 😀🎉""#,
        #""\ud83d\ude00 escaped surrogates""#,
        #""\u00e9\u65e5""#,
        #""\udbff\udfff is U+10FFFF, \ufeff is a BOM, \uffff a noncharacter""#,
        "\"raw U+10FFFF \u{10FFFF} and combining e\u{301}\"",
        #""quote \" backslash \\ slash \/ controls \b\f\n\r\t \u0000 \u001f""#,
        "[]",
        "{}",
        #"[1,"two",3.5,null,true,[[],[{}]],{"a":[1,{"b":null}]}]"#,
        #"{"nested":{"deeper":{"deepest":[9223372036854775807,-9223372036854775808,0.1]}},"emoji😀":"ok","":"empty key"}"#,
    ]

    @Test(arguments: valueTexts)
    func valueComesBackAsSentFromGetObserveAndEvents(text: String) throws {
        let expected = try #require(JSONTree(json: text), "test data is not JSON: \(text)")
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "v"])
            let writer = try server.connect()
            let set = try writer.call(fields: #""op":"set","key":"v","value":"# + text)
            #expect(set.ok == true, "\(text) -> \(set)")
            let get = try writer.call(["op": "get", "key": "v"])
            #expect(get["value"] == expected, "get of \(text) -> \(get)")
            let event = try observer.nextEvent()
            #expect(event["new"] == expected, "event of \(text) -> \(event)")
            let snapshot = try server.connect().call(["op": "observe", "key": "v"])
            #expect(snapshot["values"]?.array?.first?["value"] == expected, "snapshot of \(text) -> \(snapshot)")
        }
    }

    @Test func integersAtTheInt64ExtremesKeepEveryDigit() throws {
        try withServer { server in
            let client = try server.connect()
            for text in ["9223372036854775807", "-9223372036854775808", "9007199254740993"] {
                _ = try client.call(fields: #""op":"set","key":"n","value":"# + text)
                let get = try client.call(["op": "get", "key": "n"])
                #expect(get.text.contains("\"value\":\(text)"), "expected the exact digits \(text) in \(get)")
            }
        }
    }

    @Test func doublesRoundTripToTheSameBits() throws {
        try withServer { server in
            let client = try server.connect()
            for value in [0.1, 1e-300, 2.0 / 3.0, -123.456e-7, 1.0e22, Double.leastNonzeroMagnitude, Double.pi] {
                _ = try client.call(fields: #""op":"set","key":"d","value":"# + "\(value)")
                let get = try client.call(["op": "get", "key": "d"])
                guard case .double(let back) = try #require(get["value"]) else {
                    Issue.record("\(value) came back as \(get)")
                    continue
                }
                #expect(back.bitPattern == value.bitPattern, "\(value) came back as \(back)")
            }
        }
    }
}
