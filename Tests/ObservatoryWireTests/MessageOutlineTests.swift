import ObservatoryWire
import Testing

@Suite("MessageOutline: what a server line is, without decoding it")
struct MessageOutlineTests {
    private func outline(_ text: String) -> MessageOutline? {
        MessageOutline(line: Array(text.utf8))
    }

    @Test("an event's name and version come from the top level, not from its values")
    func eventTopLevel() {
        let line =
            #"{"event":"update","key":"k","old":{"event":"x","version":3},"new":[{"version":4}],"version":12,"author":"a"}"#
        #expect(outline(line) == MessageOutline(event: "update", version: 12))
    }

    @Test("a string that looks like a member is skipped as a string")
    func memberInsideString() {
        let line = #"{"event":"delete","key":"k","old":"\",\"version\":99","version":7}"#
        #expect(outline(line) == MessageOutline(event: "delete", version: 7))
    }

    @Test("an error's revision is read from inside its error object")
    func errorRevision() {
        let line = #"{"ok":false,"id":null,"error":{"code":"slow_consumer","message":"m","revision":41}}"#
        #expect(outline(line) == MessageOutline(errorRevision: 41))
        #expect(outline(#"{"ok":false,"id":1,"error":{"code":"conflict","message":"m"}}"#) == MessageOutline())
    }

    @Test("members of the wrong type are left out, not guessed")
    func wrongTypes() {
        #expect(outline(#"{"event":1,"version":"12"}"#) == MessageOutline())
        #expect(outline(#"{"event":"update","version":1.5}"#) == MessageOutline(event: "update"))
    }

    @Test("a line that is not one valid object has no outline")
    func invalid() {
        #expect(outline("[1,2]") == nil)
        #expect(outline(#"{"event":"update","version":12"#) == nil)
        #expect(outline(#"{"event":"update"} {}"#) == nil)
        #expect(outline(#"{"event":"update","new":tru}"#) == nil)
    }

    @Test("a slice of a larger buffer is read in place, as a whole array is")
    func slices() {
        let buffer = Array(#"xx{"event":"shutdown"}yy"#.utf8)
        #expect(MessageOutline(line: buffer[2..<(buffer.count - 2)]) == MessageOutline(event: "shutdown"))
        let list = Array(#"{"event":"shutdown"}"#.utf8)
        #expect(MessageOutline(line: AnyCollection(list)) == MessageOutline(event: "shutdown"))
    }
}
