import ObservatoryWire
import Testing

/// The `"ttl"` of `set`, of entries and of update events, and the `expired`
/// reason of a delete event (docs/protocol.md, "Expiring keys").
@Suite struct ExpiryWireTests {
    private func operation(_ frame: String) throws -> Operation<JSONValue> {
        try Request<JSONValue>.decode(frame: Array(frame.utf8)).get().operation
    }

    private func rejection(_ frame: String) -> WireError? {
        guard case .failure(let rejection) = Request<JSONValue>.decode(frame: Array(frame.utf8)) else { return nil }
        return rejection.error
    }

    private func rawRejection(_ frame: String) -> WireError? {
        guard case .failure(let rejection) = Request<EncodedJSON>.decode(frame: Array(frame.utf8)) else { return nil }
        return rejection.error
    }

    @Test func aSetTakesAWholeNumberOfSecondsFromOneToAYear() throws {
        #expect(
            try operation(#"{"op":"set","key":"k","value":1,"ttl":30}"#)
                == .set(key: "k", value: 1, ifVersion: nil, ttl: 30))
        #expect(
            try operation(#"{"op":"set","key":"k","value":1,"ttl":1}"#)
                == .set(key: "k", value: 1, ifVersion: nil, ttl: 1))
        #expect(
            try operation(#"{"op":"set","key":"k","value":1,"ttl":31536000}"#)
                == .set(key: "k", value: 1, ifVersion: nil, ttl: 31_536_000))
        #expect(try operation(#"{"op":"set","key":"k","value":1}"#) == .set(key: "k", value: 1, ifVersion: nil))
        let raw = try Request<EncodedJSON>.decode(frame: Array(#"{"op":"set","key":"k","value":1,"ttl":30}"#.utf8))
            .get()
        guard case .set(_, _, _, _, _, let ttl) = raw.operation else {
            Issue.record("not a set: \(raw.operation)")
            return
        }
        #expect(ttl == 30)
    }

    @Test(arguments: ["0", "-1", "31536001", "1.5", #""30""#, "true", "[30]", "{}"])
    func anyOtherTTLIsABadRequestNamingTheField(value: String) {
        for error in [
            rejection(#"{"op":"set","key":"k","value":1,"ttl":\#(value)}"#),
            rawRejection(#"{"op":"set","key":"k","value":1,"ttl":\#(value)}"#),
        ] {
            #expect(error?.code == .badRequest, "ttl \(value)")
            #expect(error?.message.contains(#"field "ttl""#) == true, "\(error?.message ?? "accepted")")
        }
    }

    @Test func aSetSendsItsTTL() {
        let set = Request<JSONValue>(id: .integer(1), operation: .set(key: "k", value: 1, ifVersion: nil, ttl: 30))
            .encoded()
        #expect(String(decoding: set, as: UTF8.self) == #"{"id":1,"op":"set","key":"k","value":1,"ttl":30}"#)
    }

    @Test func anUpdateEventCarriesTheTTLThereAndBack() throws {
        let event = Event.update(
            key: "k", old: nil, new: 1, version: 3, author: "alice", session: "s1", ttl: 30)
        let line = event.encoded()
        #expect(
            String(decoding: line, as: UTF8.self)
                == #"{"event":"update","key":"k","new":1,"version":3,"author":"alice","session":"s1","ttl":30}"#)
        guard case .event(let decoded) = try ServerMessage.decode(frame: line) else {
            Issue.record("not an event")
            return
        }
        #expect(decoded == event)
        let raw = try RawEvent.decode(frame: line)
        #expect(raw.encoded() == line)
    }

    @Test func anExpiredDeleteSaysSo() throws {
        let event = Event.delete(key: "k", old: 1, version: 4, author: "alice", session: "s1", reason: Event.expired)
        let line = event.encoded()
        #expect(
            String(decoding: line, as: UTF8.self)
                == #"{"event":"delete","key":"k","old":1,"version":4,"author":"alice","session":"s1","reason":"expired"}"#
        )
    }

    @Test func anEntryCarriesTheSecondsLeftRoundedUp() throws {
        let now = KeyExpiry.wallMilliseconds()
        let expiry = KeyExpiry(seconds: 30, deadline: now + 29_500, author: "alice", session: "s1")
        #expect(expiry.secondsLeft(now: now) == 30)
        #expect(expiry.secondsLeft(now: now + 499) == 30)
        #expect(expiry.secondsLeft(now: now + 500) == 29)
        #expect(expiry.secondsLeft(now: now + 29_500) == 0)
        let entry = RawValueEntry(
            key: "k", value: 1, version: 3, author: "alice", session: "s1",
            expiry: KeyExpiry(seconds: 30, deadline: now + 60_000, author: "alice", session: "s1"))
        let reply = RawReply.success(id: .integer(1), .get(entry)).encoded()
        let text = String(decoding: reply, as: UTF8.self)
        #expect(text.hasSuffix(#","ttl":60}"#) || text.hasSuffix(#","ttl":59}"#), "\(text)")
        guard case .reply(let decoded) = try ServerMessage.decode(frame: reply),
            case .get(let got) = try decoded.payload(for: .get)
        else {
            Issue.record("not a get reply: \(text)")
            return
        }
        #expect(got.ttl == 60 || got.ttl == 59)
        let lasting = RawReply.success(
            id: .integer(1), .get(RawValueEntry(key: "k", value: 1, version: 3, author: "a", session: "s")))
        #expect(!String(decoding: lasting.encoded(), as: UTF8.self).contains("ttl"))
    }
}
