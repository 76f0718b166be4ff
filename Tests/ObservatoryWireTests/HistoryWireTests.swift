import ObservatoryWire
import Testing

/// The `history` op on the wire: its request fields with their defaults and
/// every `bad_request` rule, and its reply (each change its event plus `at`).
@Suite struct HistoryWireTests {
    private func decode(_ frame: String) -> Result<Request<JSONValue>, RequestRejection> {
        Request<JSONValue>.decode(frame: Array(frame.utf8))
    }

    private func query(_ frame: String, sourceLocation: SourceLocation = #_sourceLocation) -> HistoryQuery? {
        switch decode(frame) {
        case .success(let request):
            guard case .history(let query) = request.operation else {
                Issue.record("not a history: \(request)", sourceLocation: sourceLocation)
                return nil
            }
            return query
        case .failure(let rejection):
            Issue.record("rejected: \(rejection.error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    private func errorCode(_ frame: String) -> ErrorCode? {
        guard case .failure(let rejection) = decode(frame) else { return nil }
        return rejection.error.code
    }

    @Test func aKeyAloneTakesEveryDefault() {
        #expect(query(#"{"op":"history","key":"door.locked"}"#) == HistoryQuery(.key("door.locked")))
        let defaults = HistoryQuery(.prefix("door."))
        #expect(defaults.fromRevision == 0 && defaults.toRevision == nil && defaults.limit == 100)
        #expect(defaults.author == nil && defaults.session == nil && !defaults.newestFirst)
    }

    @Test func everyFieldIsRead() {
        let frame =
            #"{"op":"history","prefix":"door.","author":"alice","session":"s4","fromRevision":2,"toRevision":8,"#
            + #""limit":1000,"newestFirst":true}"#
        #expect(
            query(frame)
                == HistoryQuery(
                    .prefix("door."), author: "alice", session: "s4", fromRevision: 2, toRevision: 8, limit: 1_000,
                    newestFirst: true))
    }

    @Test(arguments: [
        #"{"op":"history"}"#,
        #"{"op":"history","key":"a","prefix":"a"}"#,
        #"{"op":"history","key":""}"#,
        #"{"op":"history","key":"a","limit":0}"#,
        #"{"op":"history","key":"a","limit":1001}"#,
        #"{"op":"history","key":"a","limit":-3}"#,
        #"{"op":"history","key":"a","limit":2.5}"#,
        #"{"op":"history","key":"a","limit":"10"}"#,
        #"{"op":"history","key":"a","fromRevision":-1}"#,
        #"{"op":"history","key":"a","toRevision":-1}"#,
        #"{"op":"history","key":"a","toRevision":"5"}"#,
        #"{"op":"history","key":"a","author":1}"#,
        #"{"op":"history","key":"a","session":["s1"]}"#,
        #"{"op":"history","key":"a","newestFirst":1}"#,
    ])
    func malformedFieldsAreBadRequests(_ frame: String) {
        let code = errorCode(frame)
        #expect(code == .badRequest || code == .invalidKey, "\(frame)")
        if !frame.contains(#""key":"""#) { #expect(code == .badRequest, "\(frame)") }
    }

    @Test func aLimitOverAThousandSaysHowToPage() {
        guard case .failure(let rejection) = decode(#"{"op":"history","key":"a","limit":5000}"#) else {
            Issue.record("accepted")
            return
        }
        #expect(rejection.error.code == .badRequest)
        #expect(rejection.error.message.contains("at most 1000"), "\(rejection.error.message)")
    }

    @Test func aChangeIsItsEventWithAtAsItsLastMember() {
        let change = HistoryChange<JSONValue>(
            event: .update(key: "k", old: nil, new: .bool(true), version: 4, author: "alice", session: "s1"),
            at: 1_764_301_234_567)
        var buffer: [UInt8] = []
        change.encode(into: &buffer)
        #expect(
            String(decoding: buffer, as: UTF8.self)
                == #"{"event":"update","key":"k","new":true,"version":4,"author":"alice","session":"s1","at":1764301234567}"#
        )
    }

    @Test func theReplyDecodesBackIntoItsChanges() throws {
        let changes = [
            HistoryChange<JSONValue>(
                event: .update(key: "k", old: nil, new: .integer(1), version: 4, author: "alice", session: "s1"),
                at: 10),
            HistoryChange<JSONValue>(
                event: .delete(key: "k", old: .integer(1), version: 6, author: "bob", session: "s2"), at: 20),
        ]
        let payload = ReplyPayload.history(changes: changes, more: true, revision: 9, horizon: 3)
        let line = Reply.success(id: .integer(1), payload).encoded()
        guard case .reply(let reply) = try ServerMessage.decode(frame: line) else {
            Issue.record("not a reply")
            return
        }
        #expect(try reply.payload(for: .history) == payload)
    }
}
