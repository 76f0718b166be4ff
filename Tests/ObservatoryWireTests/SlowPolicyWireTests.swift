import ObservatoryWire
import Testing

/// The `"slow"` field of `observe`, and the `revision` of a `slow_consumer` error.
@Suite struct SlowPolicyWireTests {
    private func operation(_ frame: String) throws -> Operation<JSONValue> {
        try Request<JSONValue>.decode(frame: Array(frame.utf8)).get().operation
    }

    private func rejection(_ frame: String) -> WireError? {
        guard case .failure(let rejection) = Request<JSONValue>.decode(frame: Array(frame.utf8)) else { return nil }
        return rejection.error
    }

    @Test func observeTakesCloseOrCoalesceAndDefaultsToCoalesce() throws {
        #expect(try operation(#"{"op":"observe","key":"k"}"#) == .observe(.key("k"), slow: .coalesce))
        #expect(try operation(#"{"op":"observe","key":"k","slow":"coalesce"}"#) == .observe(.key("k")))
        #expect(
            try operation(#"{"op":"observe","prefix":"a.","fromRevision":3,"slow":"close"}"#)
                == .observe(.prefix("a."), from: ResumePoint(revision: 3, epoch: nil), slow: .close))
        // Every op but set and batch decodes alike in both representations.
        let raw = try Request<EncodedJSON>.decode(frame: Array(#"{"op":"observe","key":"k","slow":"close"}"#.utf8))
            .get()
        #expect(raw.operation == .observe(.key("k"), slow: .close))
    }

    @Test(arguments: [#""drop""#, #""Close""#, #""""#, "true", "1", #"["close"]"#])
    func anyOtherSlowValueIsABadRequestNamingTheField(value: String) {
        let error = rejection(#"{"op":"observe","key":"k","slow":\#(value)}"#)
        #expect(error?.code == .badRequest)
        #expect(error?.message.contains(#"field "slow""#) == true, "\(error?.message ?? "accepted")")
    }

    @Test func closeIsSentAndCoalesceIsLeftOut() {
        let close = Request<JSONValue>(id: .integer(1), operation: .observe(.key("k"), slow: .close)).encoded()
        let coalesce = Request<JSONValue>(id: .integer(2), operation: .observe(.key("k"))).encoded()
        #expect(String(decoding: close, as: UTF8.self) == #"{"id":1,"op":"observe","key":"k","slow":"close"}"#)
        #expect(String(decoding: coalesce, as: UTF8.self) == #"{"id":2,"op":"observe","key":"k"}"#)
    }

    @Test func aSlowConsumerErrorCarriesItsRevisionThereAndBack() throws {
        let error = WireError.slowConsumer(limit: 1_024, revision: 41)
        let line = Reply.failure(id: nil, error).encoded()
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.hasPrefix(#"{"ok":false,"id":null,"error":{"code":"slow_consumer","message":"#))
        #expect(text.hasSuffix(#","revision":41}}"#))
        guard case .reply(let reply) = try ServerMessage.decode(frame: line), case .failure(let decoded) = reply.outcome
        else {
            Issue.record("not a failure reply: \(text)")
            return
        }
        #expect(decoded == error)
    }
}
