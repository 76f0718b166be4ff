import ObservatoryWire
import Testing

@Suite struct ReplyTests {
    private let entry = ValueEntry(key: "sky.color", value: "blue", version: 12, author: "alice", session: "s3")

    @Test(arguments: [
        (
            Reply.success(
                id: .integer(1),
                .hello(
                    server: "observatoryd 1.0", protocolVersion: 1, session: "s3", author: "alice", revision: 42,
                    epoch: "e1")),
            #"{"ok":true,"id":1,"server":"observatoryd 1.0","protocol":1,"session":"s3","author":"alice","revision":42,"epoch":"e1"}"#
        ),
        (
            Reply.success(
                id: .string("g"),
                .get(
                    ValueEntry(
                        key: "sky.color", value: ["rgb": [0, 0.5, 1]], version: 12, author: "alice", session: "s3"))),
            #"{"ok":true,"id":"g","key":"sky.color","value":{"rgb":[0,0.5,1]},"version":12,"author":"alice","session":"s3"}"#
        ),
        (
            Reply.success(id: .integer(7), .set(key: "a", version: 3, changed: true)),
            #"{"ok":true,"id":7,"key":"a","version":3,"changed":true}"#
        ),
        (
            Reply.success(id: .integer(7), .set(key: "a", version: 3, changed: false)),
            #"{"ok":true,"id":7,"key":"a","version":3,"changed":false}"#
        ),
        (
            Reply.success(id: nil, .delete(key: "a", version: 4)),
            #"{"ok":true,"id":null,"key":"a","version":4}"#
        ),
        (
            Reply.success(id: .integer(8), .observe(values: [], revision: 0)),
            #"{"ok":true,"id":8,"values":[],"revision":0}"#
        ),
        (
            Reply.success(
                id: .integer(8),
                .observe(
                    values: [
                        ValueEntry(key: "a", value: 1, version: 2, author: "bob", session: "s1"),
                        ValueEntry(key: "b", value: nil, version: 5, author: "eve", session: "s2"),
                    ], revision: 7)),
            #"{"ok":true,"id":8,"values":[{"key":"a","value":1,"version":2,"author":"bob","session":"s1"},{"key":"b","value":null,"version":5,"author":"eve","session":"s2"}],"revision":7}"#
        ),
        (Reply.success(id: .integer(9), .unobserve), #"{"ok":true,"id":9}"#),
        (
            Reply.success(
                id: .integer(10),
                .list(keys: [KeyVersion(key: "a", version: 2), KeyVersion(key: "b", version: 5)], more: true)),
            #"{"ok":true,"id":10,"keys":[{"key":"a","version":2},{"key":"b","version":5}],"more":true}"#
        ),
        (Reply.success(id: .integer(11), .list(keys: [], more: false)), #"{"ok":true,"id":11,"keys":[],"more":false}"#),
        (
            Reply.success(id: .string("p"), .ping(revision: 3, epoch: "e1")),
            #"{"ok":true,"id":"p","revision":3,"epoch":"e1"}"#
        ),
    ])
    func successRepliesEncodeExactlyAsTheProtocolShows(_ reply: Reply, _ expected: String) {
        #expect(text(reply.encoded()) == expected)
    }

    @Test func failureRepliesCarryCodeAndMessage() {
        let reply = Reply.failure(id: .integer(7), .notFound(key: "a"))
        #expect(
            text(reply.encoded())
                == #"{"ok":false,"id":7,"error":{"code":"not_found","message":"key \"a\" does not exist"}}"#)
    }

    @Test func conflictFailuresCarryTheCurrentVersion() {
        let reply = Reply.failure(id: .integer(7), .conflict(key: "a", expected: 2, current: 3))
        #expect(
            text(reply.encoded())
                == #"{"ok":false,"id":7,"error":{"code":"conflict","message":"key \"a\" is at version 3, not at the expected version 2","version":3}}"#
        )
        let missing = Reply.failure(id: .integer(8), .conflict(key: "a", expected: 2, current: 0))
        #expect(text(missing.encoded()).hasSuffix(#","version":0}}"#))
    }

    @Test func failuresWithoutAnIDSendNull() {
        let reply = Reply.failure(id: nil, WireError(code: .slowConsumer, message: "too slow"))
        #expect(
            text(reply.encoded()) == #"{"ok":false,"id":null,"error":{"code":"slow_consumer","message":"too slow"}}"#)
    }

    @Test func stringsInRepliesAreEscaped() {
        let reply = Reply.success(
            id: .string("a\"b"),
            .get(ValueEntry(key: "k", value: "line\nbreak", version: 1, author: "a\\b", session: "s")))
        #expect(
            text(reply.encoded())
                == #"{"ok":true,"id":"a\"b","key":"k","value":"line\nbreak","version":1,"author":"a\\b","session":"s"}"#
        )
    }

    @Test func encodeIntoAppends() {
        var buffer: [UInt8] = Array("x".utf8)
        Reply.success(id: .integer(1), .unobserve).encode(into: &buffer)
        #expect(text(buffer) == #"x{"ok":true,"id":1}"#)
    }

    @Test func everyReplyIsOneJSONObjectThatParses() throws {
        let replies: [Reply] = [
            .success(id: .integer(1), .get(entry)), .success(id: nil, .observe(values: [entry, entry], revision: 12)),
            .failure(id: .string("x"), .valueTooLarge(size: 10, limit: 5)),
        ]
        for reply in replies {
            let parsed = try JSONValue.parse(reply.encoded())
            #expect(parsed.objectValue != nil)
            #expect(parsed["ok"]?.boolValue != nil)
            #expect(parsed["event"] == nil)
        }
    }

    @Test func aWriteReplysLineIsItsEncodingAndAnLFFromTheReplyOrItsFields() {
        let ids: [RequestID?] = [nil, .integer(0), .integer(-9_223_372_036_854_775_808), .integer(.max), .string("a")]
        // Escapes at every place of a word and in the last, overlapping one.
        let escaped = ["\"", "\\", "\u{1}", "\u{1F}"].flatMap { escape in
            [0, 3, 7, 8, 12, 15].map { place in
                String(repeating: "k", count: place) + escape + String(repeating: "é", count: (15 - place) / 2)
            }
        }
        let keys =
            [
                "k", "", "loadgen.k.12345", "é.ü", "a\"b", "tab\tkey", String(repeating: "x", count: 300),
                "\u{7F}ÿ~ !#$%&'()*+,-./[]{}",
            ]
            + escaped
        let versions: [Int64] = [0, 9, 10, 12_345, .max]
        for id in ids {
            for key in keys {
                for version in versions {
                    let payloads: [ReplyPayload] = [
                        .set(key: key, version: version, changed: true),
                        .set(key: key, version: version, changed: false, duplicate: true),
                        .delete(key: key, version: version), .delete(key: key, version: version, duplicate: true),
                    ]
                    for payload in payloads {
                        let reply = Reply.success(id: id, payload)
                        var expected: [UInt8] = []
                        reply.encode(into: &expected)
                        expected.append(UInt8(ascii: "\n"))
                        #expect(reply.encodedLine() == expected, "\(reply)")
                        var written: [UInt8] = []
                        switch payload {
                        case .set(let key, let version, let changed, let duplicate):
                            Reply.encodeWriteLine(
                                id: id, key: key, version: version, changed: changed, duplicate: duplicate,
                                into: &written)
                        case .delete(let key, let version, let duplicate):
                            Reply.encodeWriteLine(
                                id: id, key: key, version: version, changed: nil, duplicate: duplicate,
                                into: &written)
                        default:
                            Issue.record("not a write: \(payload)")
                        }
                        #expect(written == expected, "\(reply) from its fields")
                    }
                }
            }
        }
    }

    @Test func aBatchReplysLineIsItsEncodingAndAnLFFromTheReplyOrItsFields() {
        let ids: [RequestID?] = [nil, .integer(-7), .integer(.max), .string("b")]
        let results: [[BatchResult]] = [
            [],
            [BatchResult(key: "k", version: 3, changed: true)],
            [
                BatchResult(key: "a.b", version: 12_345, changed: false), BatchResult(key: "é", version: 0),
                BatchResult(key: String(repeating: "x", count: 300), version: .max, changed: true),
            ],
            [BatchResult(key: "plain", version: 1), BatchResult(key: "tab\tkey", version: 2, changed: true)],
        ]
        for id in ids {
            for batch in results {
                for duplicate in [false, true] {
                    let reply = Reply.success(id: id, .batch(revision: 99, results: batch, duplicate: duplicate))
                    var expected: [UInt8] = [UInt8(ascii: " ")]
                    reply.encode(into: &expected)
                    expected.append(UInt8(ascii: "\n"))
                    var line: [UInt8] = [UInt8(ascii: " ")]
                    reply.encodeLine(into: &line)
                    #expect(line == expected, "\(reply)")
                    var written: [UInt8] = [UInt8(ascii: " ")]
                    Reply.encodeBatchLine(id: id, revision: 99, results: batch, duplicate: duplicate, into: &written)
                    #expect(written == expected, "\(reply) from its fields")
                }
            }
        }
    }

    @Test func aReplysLineIsAppendedAfterWhatTheBufferHolds() {
        let replies: [Reply] = [
            .success(id: .integer(3), .set(key: "k", version: 9, changed: true)),
            .success(id: nil, .delete(key: "a\"b", version: 1, duplicate: true)),
            .success(id: .string("s"), .set(key: "k", version: 2, changed: false)),
            .success(id: .integer(4), .ping(revision: 2, epoch: "e")),
            .failure(id: nil, .notFound(key: "k")),
        ]
        for prefixCount in [0, 1, 200, 256, 1_000] {
            let prefix = [UInt8](repeating: UInt8(ascii: " "), count: prefixCount)
            for reply in replies {
                var buffer = prefix
                reply.encodeLine(into: &buffer)
                #expect(buffer == prefix + reply.encodedLine(), "\(reply) after \(prefixCount) bytes")
            }
        }
    }

    @Test func idIsReadableFromBothCases() {
        #expect(Reply.success(id: .integer(1), .unobserve).id == .integer(1))
        #expect(Reply.failure(id: .string("a"), .notFound(key: "k")).id == .string("a"))
    }
}
