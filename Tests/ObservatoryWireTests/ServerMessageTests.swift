import ObservatoryWire
import Testing

@Suite struct ServerMessageTests {
    private func decode(_ frame: String) throws(WireError) -> ServerMessage {
        try ServerMessage.decode(frame: Array(frame.utf8))
    }

    private func decodeError(_ frame: String) -> WireError? {
        do {
            let message = try decode(frame)
            Issue.record("decoded \(message)")
            return nil
        } catch {
            return error
        }
    }

    private static let entry = ValueEntry(
        key: "a.b", value: ["x": [1, 2.5, "😀"]], version: 4, author: "alice", session: "s1")

    @Test(arguments: [
        (
            OperationKind.hello,
            Reply.success(
                id: .integer(1),
                .hello(
                    server: "observatoryd", protocolVersion: 1, session: "s1", author: "anonymous", revision: 4,
                    epoch: "e"))
        ),
        (.get, .success(id: .string("g"), .get(entry))),
        (.set, .success(id: .integer(2), .set(key: "a", version: 9, changed: false))),
        (.delete, .success(id: .integer(3), .delete(key: "a", version: 10))),
        (.observe, .success(id: .integer(4), .observe(values: [entry, entry], revision: 4))),
        (.unobserve, .success(id: .integer(5), .unobserve)),
        (.list, .success(id: .integer(6), .list(keys: [KeyVersion(key: "a", version: 1)], more: true))),
        (.ping, .success(id: nil, .ping(revision: 4, epoch: "e"))),
        (.set, .failure(id: .integer(7), .conflict(key: "a", expected: 1, current: 2))),
        (.get, .failure(id: nil, .badFrame("got an array"))),
    ])
    func everyReplyDecodesBackToItself(_ kind: OperationKind, _ reply: Reply) throws {
        guard case .reply(let received) = try ServerMessage.decode(frame: reply.encoded()) else {
            Issue.record("a reply must decode as a reply")
            return
        }
        #expect(received.id == reply.id)
        #expect(try received.reply(for: kind) == reply)
    }

    @Test(arguments: [
        Event.update(key: "k", old: nil, new: 1, version: 1, author: "a", session: "s"),
        .update(key: "k", old: [1], new: ["n": nil], version: 2, author: "a", session: "s"),
        .update(key: "k", old: .null, new: "x", version: 3, author: "a", session: "s"),
        .delete(key: "k", old: "x", version: 3, author: "a", session: "s"),
        .shutdown,
    ])
    func everyEventDecodesBackToItself(_ event: Event) throws {
        #expect(try ServerMessage.decode(frame: event.encoded()) == .event(event))
    }

    @Test func failureRepliesThrowTheServersErrorWhenAskedForAPayload() throws {
        guard
            case .reply(let received) = try decode(
                #"{"ok":false,"id":7,"error":{"code":"conflict","message":"m","version":3}}"#)
        else {
            Issue.record("expected a reply")
            return
        }
        #expect(throws: WireError(code: .conflict, message: "m", currentVersion: 3)) { try received.payload(for: .set) }
    }

    @Test func unknownErrorCodesFromNewerServersArePreserved() throws {
        let message = try decode(#"{"ok":false,"id":1,"error":{"code":"rate_limited","message":"later"}}"#)
        #expect(
            message
                == .reply(
                    ReceivedReply(
                        id: .integer(1),
                        outcome: .failure(WireError(code: ErrorCode(rawValue: "rate_limited"), message: "later")))))
    }

    @Test func malformedSuccessFieldsAreBadFramesNamingTheField() throws {
        guard case .reply(let received) = try decode(#"{"ok":true,"id":1,"key":"a","version":"3","changed":true}"#)
        else {
            Issue.record("expected a reply")
            return
        }
        #expect(
            throws: WireError(
                code: .badFrame, message: "server reply: field \"version\" must be an integer ≥ 0, got a string \"3\"")
        ) {
            try received.payload(for: .set)
        }
    }

    @Test func malformedObserveEntriesAreBadFrames() throws {
        guard case .reply(let received) = try decode(#"{"ok":true,"id":1,"values":[1]}"#) else {
            Issue.record("expected a reply")
            return
        }
        #expect(throws: WireError.self) { try received.payload(for: .observe) }
    }

    @Test func framesThatAreNeitherRepliesNorEventsAreBadFrames() {
        #expect(decodeError("{}")?.code == .badFrame)
        #expect(decodeError("[1]")?.code == .badFrame)
        #expect(decodeError("nope")?.code == .badFrame)
        #expect(decodeError(#"{"ok":"yes","id":1}"#)?.code == .badFrame)
        #expect(
            decodeError(#"{"ok":false,"id":1}"#)?.message == "server reply: field \"error\" is required (an object)")
        #expect(decodeError(#"{"ok":true,"id":true}"#)?.code == .badFrame)
    }

    @Test func malformedEventsAreBadFrames() {
        #expect(
            decodeError(#"{"event":"explode"}"#)?.message
                == "server event: field \"event\" names an unknown event \"explode\"; expected update, delete or shutdown"
        )
        #expect(decodeError(#"{"event":5}"#)?.code == .badFrame)
        #expect(
            decodeError(#"{"event":"delete","key":"k","version":1,"author":"a","session":"s"}"#)?.message
                == "server event: field \"old\" is required (any JSON value)")
        #expect(decodeError(#"{"event":"update","key":"k","version":1,"author":"a","session":"s"}"#)?.code == .badFrame)
    }

    @Test func eventsAreToldFromRepliesByTheEventField() throws {
        #expect(try decode(#"{"event":"shutdown"}"#) == .event(.shutdown))
        guard case .reply = try decode(#"{"ok":true,"id":1}"#) else {
            Issue.record("expected a reply")
            return
        }
    }

    @Test func idsThatAreNotStringsIntegersOrNullAreBadFrames() {
        #expect(
            decodeError(#"{"ok":true,"id":1.0e0}"#)?.message
                == "server reply: field \"id\" must be a string, an integer or null, got a number")
    }

    @Test func wholeDoubleVersionsFromTheServerDecodeAsIntegers() throws {
        let received = try decode(#"{"ok":true,"id":1,"key":"a","version":2.0,"changed":true}"#)
        guard case .reply(let reply) = received else {
            Issue.record("expected a reply")
            return
        }
        #expect(try reply.payload(for: .set) == .set(key: "a", version: 2, changed: true))
    }
}
