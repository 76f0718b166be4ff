import ObservatoryWire
import Testing

@testable import ObservatoryServer

@Suite struct SessionTests {
    private func makeContext(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws -> SessionFixture {
        try SessionFixture(configuration: testConfiguration(adjust))
    }

    private func code(_ reply: JSONValue?) -> String? {
        reply?["error"]?["code"]?.stringValue
    }

    @Test func helloIsOptionalAndAuthorIsAnonymousWithoutIt() throws {
        let harness = SessionHarness(fixture: try makeContext())
        let replies = try harness.send(#"{"op":"set","key":"a","value":1,"id":1}"#, #"{"op":"get","key":"a","id":2}"#)
        #expect(replies[0] == (try json(#"{"ok":true,"id":1,"key":"a","version":1,"changed":true}"#)))
        #expect(replies[1]["author"] == "anonymous")
        #expect(replies[1]["session"] == .string(harness.session.identity.session))
    }

    @Test func helloNamesTheAuthorAndReturnsTheSession() throws {
        let harness = SessionHarness(fixture: try makeContext())
        let reply = try harness.send(#"{"op":"hello","name":"alice","id":"h"}"#)[0]
        #expect(reply["ok"] == true)
        #expect(reply["id"] == "h")
        #expect(reply["protocol"] == 1)
        #expect(reply["author"] == "alice")
        #expect(reply["server"]?.stringValue?.hasPrefix("observatoryd") == true)
        #expect(reply["session"] == .string(harness.session.identity.session))
    }

    @Test func authorCannotBeSpoofedByARequestField() throws {
        let harness = SessionHarness(fixture: try makeContext())
        try harness.send(#"{"op":"hello","name":"alice"}"#)
        try harness.send(#"{"op":"set","key":"k","value":1,"author":"mallory","session":"s999"}"#)
        let entry = try #require(harness.fixture.store.get("k"))
        #expect(entry.author == "alice")
        #expect(entry.session == harness.session.identity.session)
    }

    @Test func everyOpHasItsReplyShape() throws {
        let harness = SessionHarness(fixture: try makeContext())
        let replies = try harness.send(
            #"{"op":"ping","id":1}"#,
            #"{"op":"set","key":"a.x","value":{"n":[1,2.5,"s",null,true]},"id":2}"#,
            #"{"op":"set","key":"a.x","value":{"n":[1,2.5,"s",null,true]},"id":3}"#,
            #"{"op":"get","key":"a.x","id":4}"#,
            #"{"op":"list","prefix":"a.","id":5}"#,
            #"{"op":"observe","key":"a.x","id":6}"#,
            #"{"op":"unobserve","key":"a.x","id":7}"#,
            #"{"op":"delete","key":"a.x","id":8}"#,
            #"{"op":"get","key":"a.x","id":9}"#)
        #expect(replies.count == 9)
        #expect(replies[0]["id"] == 1)
        #expect(replies[0]["revision"] == 0)
        #expect(replies[0]["epoch"]?.stringValue?.isEmpty == false)
        #expect(replies[1] == (try json(#"{"ok":true,"id":2,"key":"a.x","version":1,"changed":true}"#)))
        #expect(replies[2] == (try json(#"{"ok":true,"id":3,"key":"a.x","version":1,"changed":false}"#)))
        #expect(replies[3]["value"] == (try json(#"{"n":[1,2.5,"s",null,true]}"#)))
        #expect(replies[3]["version"] == 1)
        #expect(replies[4] == (try json(#"{"ok":true,"id":5,"keys":[{"key":"a.x","version":1}],"more":false}"#)))
        #expect(replies[5]["values"]?[0]?["key"] == "a.x")
        #expect(replies[6] == (try json(#"{"ok":true,"id":7}"#)))
        #expect(replies[7] == (try json(#"{"ok":true,"id":8,"key":"a.x","version":2}"#)))
        #expect(code(replies[8]) == "not_found")
    }

    @Test func pipelinedRepliesComeInRequestOrder() throws {
        let harness = SessionHarness(fixture: try makeContext())
        let frames = (0..<200).map { #"{"op":"set","key":"k\#($0 % 7)","value":\#($0),"id":\#($0)}"# }
        let replies = try harness.sendBytes(Array(frames.map { $0 + "\n" }.joined().utf8)).messages
        let repliesInRequestOrder = replies.map { $0["id"]?.integerValue } == (0..<200).map { Int64($0) }
        #expect(repliesInRequestOrder)
    }

    @Test func framesSplitAcrossReadsAreAnsweredOnceComplete() throws {
        let harness = SessionHarness(fixture: try makeContext())
        let bytes = Array(#"{"op":"ping","id":1}"#.utf8) + [13, 10]
        var replies: [JSONValue] = []
        for byte in bytes {
            replies += try harness.sendBytes([byte]).messages
        }
        #expect(replies.map { $0["id"] } == [1])
        #expect(replies.first?["revision"] == 0)
    }

    @Test func observeRepliesWithSnapshotThenEventsIncludingOwnChanges() throws {
        let harness = SessionHarness(fixture: try makeContext())
        try harness.send(#"{"op":"hello","name":"alice"}"#, #"{"op":"set","key":"sky","value":"blue"}"#)
        let messages = try harness.send(
            #"{"op":"observe","key":"sky","id":1}"#, #"{"op":"set","key":"sky","value":"red","id":2}"#)
        #expect(messages.count == 3)
        #expect(
            messages[0]["values"]
                == (try json(
                    #"[{"key":"sky","value":"blue","version":1,"author":"alice","session":"\#(harness.session.identity.session)"}]"#
                )))
        #expect(messages[1]["id"] == 2)
        let session = harness.session.identity.session
        #expect(
            messages[2]
                == (try json(
                    #"{"event":"update","key":"sky","old":"blue","new":"red","version":2,"author":"alice","session":"\#(session)"}"#
                )))
    }

    @Test func otherSessionsChangesArriveWithTheirAuthor() throws {
        let context = try makeContext()
        let watcher = SessionHarness(fixture: context)
        let writer = SessionHarness(fixture: context)
        try watcher.send(#"{"op":"observe","prefix":"room."}"#)
        try writer.send(#"{"op":"hello","name":"bob"}"#, #"{"op":"set","key":"room.t","value":21}"#)
        try writer.send(#"{"op":"set","key":"other","value":1}"#, #"{"op":"delete","key":"room.t"}"#)
        let events = try watcher.pending()
        let session = writer.session.identity.session
        #expect(
            events == [
                try json(
                    #"{"event":"update","key":"room.t","new":21,"version":1,"author":"bob","session":"\#(session)"}"#),
                try json(
                    #"{"event":"delete","key":"room.t","old":21,"version":3,"author":"bob","session":"\#(session)"}"#),
            ])
    }

    @Test func observingTwiceOrByKeyAndPrefixDoesNotDuplicateEvents() throws {
        let context = try makeContext()
        let watcher = SessionHarness(fixture: context)
        try watcher.send(
            #"{"op":"observe","key":"a.b"}"#, #"{"op":"observe","key":"a.b"}"#,
            #"{"op":"observe","prefix":"a."}"#, #"{"op":"observe","prefix":""}"#)
        try context.store.set("a.b", to: 1, by: Author(name: "x", session: "s0"))
        try context.store.set("a.c", to: 1, by: Author(name: "x", session: "s0"))
        let prefixEventsOnly = try watcher.pending().map { $0["key"] } == ["a.b", "a.c"]
        #expect(prefixEventsOnly)
    }

    @Test func unobserveStopsEvents() throws {
        let context = try makeContext()
        let watcher = SessionHarness(fixture: context)
        try watcher.send(#"{"op":"observe","key":"k"}"#, #"{"op":"observe","prefix":"p."}"#)
        try watcher.send(#"{"op":"unobserve","key":"k"}"#, #"{"op":"unobserve","prefix":"p."}"#)
        let someone = Author(name: "x", session: "s0")
        try context.store.set("k", to: 1, by: someone)
        try context.store.set("p.q", to: 1, by: someone)
        #expect(try watcher.pending().isEmpty)
        #expect(context.store.keyFeedCount == 0)
    }

    @Test func closingEndsAllObservations() throws {
        let context = try makeContext()
        let watcher = SessionHarness(fixture: context)
        try watcher.send(#"{"op":"observe","key":"k"}"#, #"{"op":"observe","prefix":""}"#)
        watcher.session.close()
        try context.store.set("k", to: 1, by: Author(name: "x", session: "s0"))
        #expect(try watcher.pending().isEmpty)
        #expect(context.store.keyFeedCount == 0)
    }

    @Test func observationsBeyondTheLimitAreRefused() throws {
        let harness = SessionHarness(fixture: try makeContext { $0.limits.maxObservationsPerConnection = 2 })
        let replies = try harness.send(
            #"{"op":"observe","key":"a"}"#, #"{"op":"observe","prefix":"b"}"#, #"{"op":"observe","key":"a"}"#,
            #"{"op":"observe","key":"c","id":4}"#)
        let firstThreeSucceeded = replies[0...2].allSatisfy { $0["ok"] == true }
        #expect(firstThreeSucceeded)
        #expect(code(replies[3]) == "limit_exceeded")
        #expect(replies[3]["id"] == 4)
    }

    @Test func conflictCarriesTheCurrentVersion() throws {
        let harness = SessionHarness(fixture: try makeContext())
        let replies = try harness.send(
            #"{"op":"set","key":"k","value":1,"ifVersion":0}"#,
            #"{"op":"set","key":"k","value":2,"ifVersion":0,"id":2}"#,
            #"{"op":"delete","key":"missing","ifVersion":3,"id":3}"#)
        #expect(code(replies[1]) == "conflict")
        #expect(replies[1]["error"]?["version"] == 1)
        #expect(code(replies[2]) == "conflict")
        #expect(replies[2]["error"]?["version"] == 0)
    }

    @Test(
        arguments: [
            ("{\"op\":", "bad_frame", JSONValue.null),
            ("[1,2]", "bad_frame", .null),
            ("42", "bad_frame", .null),
            ("\"op\"", "bad_frame", .null),
            ("garbage \u{1}\u{7f} !!", "bad_frame", .null),
            (String(repeating: "[", count: 10_000), "bad_frame", .null),
            (#"{"op":"fly","id":3}"#, "unknown_op", 3),
            (#"{"id":"x"}"#, "bad_request", "x"),
            (#"{"op":7,"id":4}"#, "bad_request", 4),
            (#"{"op":"ping","id":[1]}"#, "bad_request", .null),
            (#"{"op":"ping","id":1.5}"#, "bad_request", .null),
            (#"{"op":"get","id":5}"#, "bad_request", 5),
            (#"{"op":"get","key":9,"id":6}"#, "bad_request", 6),
            (#"{"op":"set","key":"k","id":7}"#, "bad_request", 7),
            (#"{"op":"set","key":"k","value":1,"ifVersion":"1","id":8}"#, "bad_request", 8),
            (#"{"op":"get","key":"has space","id":9}"#, "invalid_key", 9),
            (#"{"op":"get","key":"","id":10}"#, "invalid_key", 10),
            (#"{"op":"observe","id":11}"#, "bad_request", 11),
            (#"{"op":"get","key":"\#(String(repeating: "k", count: 257))","id":12}"#, "invalid_key", 12),
        ] as [(String, String, JSONValue)])
    func badInputGetsItsCodeAndTheSessionGoesOn(frame: String, expectedCode: String, expectedID: JSONValue) throws {
        let harness = SessionHarness(fixture: try makeContext())
        let result = try harness.sendBytes(Array((frame + "\n").utf8))
        #expect(result.action == .keepOpen)
        #expect(result.messages.count == 1)
        #expect(code(result.messages.first) == expectedCode)
        #expect(result.messages.first?["id"] == expectedID)
        #expect(try harness.send(#"{"op":"ping","id":"after"}"#).map { $0["ok"] } == [true])
    }

    @Test func invalidUTF8IsABadFrame() throws {
        let harness = SessionHarness(fixture: try makeContext())
        let bytes = Array(#"{"op":"get","key":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8) + [10]
        let result = try harness.sendBytes(bytes)
        #expect(result.action == .keepOpen)
        #expect(code(result.messages.first) == "bad_frame")
    }

    @Test func hugeNumbersAreRejectedOrKeptExactlyNeverMangled() throws {
        let harness = SessionHarness(fixture: try makeContext())
        let replies = try harness.send(
            #"{"op":"set","key":"big","value":9223372036854775807,"id":1}"#,
            #"{"op":"set","key":"huge","value":1e400,"id":2}"#,
            #"{"op":"get","key":"big","id":3}"#)
        #expect(replies[0]["ok"] == true)
        #expect(code(replies[1]) == "bad_frame")
        #expect(replies[2]["value"] == .integer(Int64.max))
    }

    @Test func oversizeValueIsValueTooLarge() throws {
        let harness = SessionHarness(fixture: try makeContext { $0.limits.maxValueBytes = 100 })
        let value = String(repeating: "x", count: 200)
        let reply = try harness.send(#"{"op":"set","key":"k","value":"\#(value)","id":1}"#)[0]
        #expect(code(reply) == "value_too_large")
        #expect(harness.fixture.store.get("k") == nil)
    }

    @Test func oversizeFrameIsFrameTooLargeAndCloses() throws {
        let harness = SessionHarness(
            fixture: try makeContext {
                $0.limits.maxFrameBytes = 1_000
                $0.limits.maxValueBytes = 500
            })
        let result = try harness.sendBytes(Array(repeating: UInt8(ascii: "x"), count: 2_000))
        #expect(result.action == .close)
        #expect(code(result.messages.first) == "frame_too_large")
        #expect(result.messages.first?["id"] == .null)
    }

    @Test func requestsDuringShutdownAreRefused() throws {
        let context = try makeContext()
        let harness = SessionHarness(fixture: context)
        _ = context.environment.beginShutdown()
        let reply = try harness.send(#"{"op":"get","key":"k","id":1}"#)[0]
        #expect(code(reply) == "shutting_down")
    }

    @Test func helloWithIllTypedFieldFailsAndCloses() throws {
        let harness = SessionHarness(fixture: try makeContext())
        let result = try harness.sendBytes(Array(#"{"op":"hello","name":5,"id":1}"#.utf8 + [10]))
        #expect(result.action == .close)
        #expect(code(result.messages.first) == "bad_request")
        #expect(result.messages.first?["id"] == 1)
    }

    @Test func unsupportedProtocolFailsHelloAndCloses() throws {
        let harness = SessionHarness(fixture: try makeContext())
        let result = try harness.sendBytes(Array(#"{"op":"hello","protocol":2}"#.utf8 + [10]))
        #expect(result.action == .close)
        #expect(code(result.messages.first) == "bad_request")
    }
}

@Suite struct SessionAuthenticationTests {
    private let context: SessionFixture

    init() throws {
        context = try SessionFixture(
            configuration: testConfiguration {
                $0.auth.tokens = [
                    AccessToken(
                        token: "kitchen-token", author: "cook", read: ["kitchen.*"], write: ["kitchen.light.*"]),
                    AccessToken(token: "admin-token", author: "admin", read: ["*"], write: ["*"]),
                ]
            })
    }

    private func code(_ reply: JSONValue?) -> String? {
        reply?["error"]?["code"]?.stringValue
    }

    @Test func everyOpBeforeHelloIsUnauthenticatedButTheConnectionStays() throws {
        let harness = SessionHarness(fixture: context)
        let result = try harness.sendBytes(Array(#"{"op":"get","key":"kitchen.x","id":1}"#.utf8 + [10]))
        #expect(result.action == .keepOpen)
        #expect(code(result.messages.first) == "unauthenticated")
    }

    @Test func wrongTokenFailsAndCloses() throws {
        let harness = SessionHarness(fixture: context)
        let result = try harness.sendBytes(Array(#"{"op":"hello","token":"nope","id":1}"#.utf8 + [10]))
        #expect(result.action == .close)
        #expect(code(result.messages.first) == "unauthenticated")
    }

    @Test func tokenSetsTheAuthorWhateverNameIsSent() throws {
        let harness = SessionHarness(fixture: context)
        let reply = try harness.send(#"{"op":"hello","token":"kitchen-token","name":"admin"}"#)[0]
        #expect(reply["author"] == "cook")
        try harness.send(#"{"op":"set","key":"kitchen.light.on","value":true}"#)
        #expect(context.store.get("kitchen.light.on")?.author == "cook")
    }

    @Test func forbiddenDoesNotLeakExistence() throws {
        let admin = SessionHarness(fixture: context)
        try admin.send(#"{"op":"hello","token":"admin-token"}"#, #"{"op":"set","key":"garage.door","value":1}"#)
        let cook = SessionHarness(fixture: context)
        try cook.send(#"{"op":"hello","token":"kitchen-token"}"#)
        let replies = try cook.send(
            #"{"op":"get","key":"garage.door"}"#, #"{"op":"get","key":"garage.window"}"#,
            #"{"op":"set","key":"kitchen.oven","value":1}"#, #"{"op":"observe","prefix":""}"#,
            #"{"op":"observe","prefix":"kitchen.li"}"#, #"{"op":"list"}"#)
        let firstFourCodes = replies[0...3].map { code($0) }
        #expect(firstFourCodes == ["forbidden", "forbidden", "forbidden", "forbidden"])
        #expect(replies[4]["ok"] == true)
        #expect(replies[5]["keys"] == [])
    }
}
