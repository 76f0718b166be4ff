import Testing

@testable import ObservatoryWire

/// Reading messages that carry values without building the values: an object's
/// members as bytes (`EncodedJSON.members(ofObject:)`) and an event with its
/// values as bytes (`RawEvent.decode(frame:)`), which must follow the rules of the
/// tree decoders exactly.
@Suite struct RawEventDecodingTests {
    @Test func anObjectsMembersKeepTheirBytesInOrderWithRepeats() throws {
        let text = #" {"value": {"a": 1.0} ,"author":"al","value":[1 ,2]} "#
        let members = try #require(try EncodedJSON.members(ofObject: Array(text.utf8)))
        #expect(members.map(\.name) == ["value", "author", "value"])
        #expect(members.map(\.value.description) == [#"{"a": 1.0}"#, #""al""#, "[1 ,2]"])
    }

    @Test func aValueThatIsNoObjectHasNoMembersAndInvalidTextThrows() throws {
        #expect(try EncodedJSON.members(ofObject: Array("[1,2]".utf8)) == nil)
        #expect(throws: JSONParseError.self) { try EncodedJSON.members(ofObject: Array(#"{"a":}"#.utf8)) }
        #expect(throws: JSONParseError.self) {
            try EncodedJSON.members(ofObject: Array(#"{"a":[[1]]}"#.utf8), maxDepth: 2)
        }
    }

    @Test func anEventKeepsItsValuesAsSent() throws {
        let frame =
            #"{"event":"update","key":"k","old":{"a": 1.0},"new":[1 ,2],"version":3,"author":"al","session":"s"}"#
        let event = try RawEvent.decode(frame: Array(frame.utf8))
        guard case .update(let key, let old, let new, let version, let author, let session, let sessionBound, _) = event
        else {
            Issue.record("not an update: \(event)")
            return
        }
        #expect(key == "k" && version == 3 && author == "al" && session == "s" && !sessionBound)
        #expect(old?.description == #"{"a": 1.0}"#)
        #expect(new.description == "[1 ,2]")
    }

    static let frames: [String] = [
        #"{"event":"update","key":"k","new":"x","version":1,"author":"a","session":"s","ephemeral":true}"#,
        #"{"event":"update","key":"k","old":null,"new":{"b":[1,2.5]},"version":2,"author":"a","session":"s"}"#,
        #"{"event":"delete","key":"k","old":"x","version":4,"author":"a","session":"s","reason":"session_ended"}"#,
        #"{"event":"shutdown"}"#,
        #"{"event":"update","key":"k","version":1,"author":"a","session":"s"}"#,
        #"{"event":"delete","key":"k","version":1,"author":"a","session":"s"}"#,
        #"{"event":"update","key":"k","new":1,"new":2,"version":1,"author":"a","session":"s"}"#,
        #"{"event":"rename","key":"k"}"#,
        #"{"event":7}"#,
        #"{"ok":true}"#,
        "[1]",
        "{",
    ]

    @Test(arguments: frames)
    func anEventReadsAsTheTreeDecoderReadsIt(_ frame: String) throws {
        let tree = Result { () throws(WireError) in try ServerMessage.decode(frame: Array(frame.utf8)) }
        let raw = Result { () throws(WireError) in try RawEvent.decode(frame: Array(frame.utf8)) }
        switch (tree, raw) {
        case (.success(.event(let expected)), .success(let event)):
            #expect(event == Self.raw(expected))
        case (.failure(let expected), .failure(let error)):
            if frame.contains("event") { #expect(error == expected) }
        case (.success(.reply), .failure):
            break
        default:
            Issue.record("\(frame): the tree decoder gave \(tree), the raw one \(raw)")
        }
    }

    private static func raw(_ event: Event) -> RawEvent {
        switch event {
        case .update(let key, let old, let new, let version, let author, let session, let sessionBound, _):
            .update(
                key: key, old: old.map(EncodedJSON.init), new: EncodedJSON(new), version: version, author: author,
                session: session, sessionBound: sessionBound)
        case .delete(let key, let old, let version, let author, let session, let reason):
            .delete(
                key: key, old: EncodedJSON(old), version: version, author: author, session: session, reason: reason)
        case .shutdown:
            .shutdown
        }
    }

    @Test func literalsAreTheCompactEncodingOfTheValue() {
        let object: EncodedJSON = ["b": [1, 2.5], "a": nil]
        #expect(object.description == #"{"b":[1,2.5],"a":null}"#)
        #expect((7 as EncodedJSON).description == "7")
        #expect((2.5 as EncodedJSON).description == "2.5")
        #expect(("é" as EncodedJSON).description == #""é""#)
        #expect((true as EncodedJSON).description == "true")
        #expect(EncodedJSON.null.description == "null")
    }
}
