import Testing

@testable import ObservatoryWire

/// Replies and events with ``EncodedJSON`` values must be byte for byte those
/// with the equivalent ``JSONValue`` when the bytes are canonical, and carry
/// the bytes as sent otherwise.
@Suite struct RawMessageTests {
    static let canonicalValues: [String] = [
        "null", "true", "0", "-7", "2.5", "-0.0", "1e+22", #""""#, #""say \"hi\"\n""#, #""é😀""#, "[]", "{}",
        #"{"r":255,"g":128,"b":0,"name":"orange"}"#, #"[1,[2,{"a":null}],"x"]"#,
    ]

    private func values(_ text: String) throws -> (tree: JSONValue, bytes: EncodedJSON) {
        let bytes = try EncodedJSON(validating: Array(text.utf8))
        #expect(bytes.isCanonical)
        return (try json(text), bytes)
    }

    @Test(arguments: canonicalValues)
    func getRepliesAreTheTreeEncodersBytes(_ text: String) throws {
        let (tree, bytes) = try values(text)
        for sessionBound in [false, true] {
            let expected = Reply.success(
                id: .integer(7),
                .get(
                    ValueEntry(
                        key: "k", value: tree, version: 3, author: "alice", session: "s1", sessionBound: sessionBound))
            )
            let raw = RawReply.success(
                id: .integer(7),
                .get(
                    RawValueEntry(
                        key: "k", value: bytes, version: 3, author: "alice", session: "s1",
                        sessionBound: sessionBound)))
            #expect(raw.encodedLine() == expected.encodedLine())
            #expect(raw.encoded() == expected.encoded())
        }
    }

    @Test(arguments: [nil, false, true] as [Bool?])
    func observeRepliesAreTheTreeEncodersBytes(_ resumed: Bool?) throws {
        var entries: [ValueEntry] = []
        var rawEntries: [RawValueEntry] = []
        for (index, text) in Self.canonicalValues.enumerated() {
            let (tree, bytes) = try values(text)
            let key = "k\(index)"
            entries.append(ValueEntry(key: key, value: tree, version: Int64(index), author: "a", session: "s"))
            rawEntries.append(RawValueEntry(key: key, value: bytes, version: Int64(index), author: "a", session: "s"))
        }
        for count in [0, 1, entries.count] {
            let expected = Reply.success(
                id: .string("q"), .observe(values: Array(entries.prefix(count)), revision: 99, resumed: resumed))
            let raw = RawReply.success(
                id: .string("q"), .observe(values: Array(rawEntries.prefix(count)), revision: 99, resumed: resumed))
            #expect(raw.encodedLine() == expected.encodedLine())
        }
    }

    @Test(arguments: canonicalValues)
    func updateAndDeleteEventsAreTheTreeEncodersBytes(_ text: String) throws {
        let (tree, bytes) = try values(text)
        let (oldTree, oldBytes) = try values(#"{"was":[1,"x"]}"#)
        for sessionBound in [false, true] {
            for hasOld in [false, true] {
                // Not `nil`: JSONValue takes the nil literal too, as `null`.
                let old: JSONValue? = hasOld ? oldTree : Optional.none
                let event = Event.update(
                    key: "sky.color", old: old, new: tree, version: 12, author: "alice",
                    session: "s3", sessionBound: sessionBound)
                let raw = RawEvent.update(
                    key: "sky.color", old: hasOld ? oldBytes : nil, new: bytes, version: 12, author: "alice",
                    session: "s3", sessionBound: sessionBound)
                var eventBuffer: [UInt8] = Array("prefix".utf8)
                var rawBuffer = eventBuffer
                #expect(raw.encode(into: &rawBuffer) == event.encode(into: &eventBuffer))
                #expect(rawBuffer == eventBuffer)
                #expect(raw.encodedLine() == event.encodedLine())
            }
        }
        for reason in [nil, Event.sessionEnded] {
            let event = Event.delete(key: "k", old: tree, version: 13, author: "bob", session: "s4", reason: reason)
            let raw = RawEvent.delete(key: "k", old: bytes, version: 13, author: "bob", session: "s4", reason: reason)
            var eventBuffer: [UInt8] = []
            var rawBuffer: [UInt8] = []
            #expect(raw.encode(into: &rawBuffer) == event.encode(into: &eventBuffer))
            #expect(rawBuffer == eventBuffer)
        }
    }

    @Test func valuesThatAreNotCanonicalAreSentAsTheyWereReceived() throws {
        let sent = try EncodedJSON(validating: Array(#"{"g" : 1.0, "e":"\u00e9"}"#.utf8))
        let raw = RawEvent.update(key: "k", old: nil, new: sent, version: 2, author: "a", session: "s")
        #expect(
            text(raw.encoded())
                == #"{"event":"update","key":"k","new":{"g" : 1.0, "e":"\u00e9"},"version":2,"author":"a","session":"s"}"#
        )
        let tree = Event.update(key: "k", old: nil, new: sent.decoded(), version: 2, author: "a", session: "s")
        #expect(
            text(tree.encoded())
                == #"{"event":"update","key":"k","new":{"g":1,"e":"é"},"version":2,"author":"a","session":"s"}"#)
        // Either way a client reads the same value.
        #expect(try JSONValue.parse(raw.encoded()) == JSONValue.parse(tree.encoded()))
    }
}
