import Foundation
import ObservatoryWire
import Testing

@testable import ObservatoryServer

@Suite struct AccessRulesTests {
    @Test func aPrefixPatternGrantsTheKeysUnderItOnly() throws {
        let rules = try AccessRules(["a.*"])
        #expect(rules.allows("a.b"))
        #expect(rules.allows("a."))
        #expect(!rules.allows("ab"))
        #expect(!rules.allows("a"))
        #expect(!rules.allows("b.a"))
    }

    @Test func anExactRuleGrantsThatKeyAloneAndStarGrantsEverything() throws {
        let exact = try AccessRules(["door.open"])
        #expect(exact.allows("door.open"))
        #expect(!exact.allows("door.opened"))
        #expect(!exact.allowsEveryKey(withPrefix: "door.open"))
        let all = try AccessRules(["*"])
        #expect(all.allows("anything") && all.allowsEveryKey(withPrefix: ""))
        #expect(!AccessRules.nothing.allows("a"))
    }

    @Test func observingAPrefixNeedsAPatternCoveringAllOfIt() throws {
        let rules = try AccessRules(["sky.*", "s.x"])
        #expect(rules.allowsEveryKey(withPrefix: "sky."))
        #expect(rules.allowsEveryKey(withPrefix: "sky.light."))
        #expect(!rules.allowsEveryKey(withPrefix: "sky"))
        #expect(!rules.allowsEveryKey(withPrefix: ""))
        #expect(!rules.allowsEveryKey(withPrefix: "s."))
    }

    @Test func rulesCompareByBytes() throws {
        let rules = try AccessRules(["caf\u{E9}.*", "cr\u{E8}me"])
        #expect(rules.allows("caf\u{E9}.x"))
        #expect(!rules.allows("cafe\u{301}.x"))
        #expect(!rules.allows("cre\u{300}me"))
    }

    @Test func emptyRulesAndAStarInsideAreRefusedNamingTheSetting() {
        #expect(throws: ConfigurationError.self) { try AccessRules([""], setting: "auth.anonymous.read") }
        do {
            _ = try AccessRules(["ok.*", "a*b"], setting: "auth.tokens[0].read")
            Issue.record("accepted a*b")
        } catch let error as ConfigurationError {
            #expect(error.description.contains("auth.tokens[0].read[1]"))
        } catch {
            Issue.record("\(error)")
        }
    }
}

/// Every op and every event checks the rules: tokens, anonymous rights, lists,
/// prefixes, and observations that a token's rights no longer allow.
@Suite struct AuthorizationTests {
    private func context(anonymous: AccessRights?) throws -> SessionFixture {
        try SessionFixture(
            configuration: testConfiguration {
                $0.auth.tokens = [
                    AccessToken(token: "alice-token-0123456789", author: "alice", read: ["sky.*"], write: ["sky.*"]),
                    AccessToken(token: "admin-token-0123456789", author: "admin", read: ["*"], write: ["*"]),
                ]
                $0.auth.anonymous = anonymous
            })
    }

    private func code(_ reply: JSONValue?) -> String? { reply?["error"]?["code"]?.stringValue }

    @Test func anonymousRightsApplyBeforeHelloAndNothingElse() throws {
        let context = try context(anonymous: AccessRights(read: ["public.*"], write: []))
        let admin = SessionHarness(fixture: context)
        try admin.send(#"{"op":"hello","token":"admin-token-0123456789"}"#)
        try admin.send(#"{"op":"set","key":"public.news","value":1}"#, #"{"op":"set","key":"sky.color","value":2}"#)
        let guest = SessionHarness(fixture: context)
        let replies = try guest.send(
            #"{"op":"get","key":"public.news","id":1}"#,
            #"{"op":"get","key":"sky.color","id":2}"#,
            #"{"op":"set","key":"public.news","value":3,"id":3}"#,
            #"{"op":"list","id":4}"#,
            #"{"op":"ping","id":5}"#)
        #expect(replies[0]["value"] == 1)
        #expect(code(replies[1]) == "unauthenticated")
        #expect(code(replies[2]) == "unauthenticated")
        #expect(replies[3]["keys"] == [["key": "public.news", "version": 1]])
        #expect(replies[4]["ok"] == true)
    }

    @Test func aHelloWithoutATokenKeepsTheAnonymousRightsAndAWrongOneCloses() throws {
        let context = try context(anonymous: AccessRights(read: ["public.*"], write: []))
        let guest = SessionHarness(fixture: context)
        let hello = try guest.send(#"{"op":"hello","name":"visitor","id":1}"#)
        #expect(hello.first?["author"] == "visitor")
        #expect(code(try guest.send(#"{"op":"get","key":"sky.a","id":2}"#).first) == "unauthenticated")
        let intruder = SessionHarness(fixture: context)
        let result = try intruder.sendBytes(Array(#"{"op":"hello","token":"wrong","id":1}"#.utf8) + [10])
        #expect(code(result.messages.first) == "unauthenticated")
        #expect(result.action == .close)
    }

    @Test func withoutAnAnonymousBlockEverythingButHelloIsUnauthenticated() throws {
        let guest = SessionHarness(fixture: try context(anonymous: nil))
        let replies = try guest.send(#"{"op":"get","key":"public.news","id":1}"#, #"{"op":"ping","id":2}"#)
        #expect(replies.map { code($0) } == ["unauthenticated", "unauthenticated"])
    }

    @Test func aTokenSeesOnlyWhatItsRulesAllow() throws {
        let context = try context(anonymous: nil)
        let admin = SessionHarness(fixture: context)
        try admin.send(#"{"op":"hello","token":"admin-token-0123456789"}"#)
        try admin.send(#"{"op":"set","key":"sky.a","value":1}"#, #"{"op":"set","key":"skyline","value":2}"#)
        let alice = SessionHarness(fixture: context)
        try alice.send(#"{"op":"hello","token":"alice-token-0123456789"}"#)
        let replies = try alice.send(
            #"{"op":"list","id":1}"#,
            #"{"op":"observe","prefix":"sky","id":2}"#,
            #"{"op":"observe","prefix":"sky.","id":3}"#,
            #"{"op":"get","key":"skyline","id":4}"#,
            #"{"op":"set","key":"skyline","value":3,"id":5}"#,
            #"{"op":"observe","prefix":"","id":6}"#)
        #expect(replies[0]["keys"] == [["key": "sky.a", "version": 1]])
        #expect(code(replies[1]) == "forbidden", "\"sky\" covers skyline")
        #expect(replies[2]["ok"] == true)
        #expect(code(replies[3]) == "forbidden")
        #expect(code(replies[4]) == "forbidden")
        #expect(code(replies[5]) == "forbidden")
        // No event about a key alice may not read reaches her.
        try admin.send(#"{"op":"set","key":"skyline","value":4}"#, #"{"op":"set","key":"sky.a","value":5}"#)
        #expect(try alice.pending().map { $0["key"] } == ["sky.a"])
    }

    @Test func aTokenWithFewerRightsEndsTheAnonymousObservationsItMayNotRead() throws {
        let context = try context(anonymous: AccessRights(read: ["public.*"], write: []))
        let admin = SessionHarness(fixture: context)
        try admin.send(#"{"op":"hello","token":"admin-token-0123456789"}"#)
        let client = SessionHarness(fixture: context)
        #expect(try client.send(#"{"op":"observe","prefix":"public.","id":1}"#).first?["ok"] == true)
        #expect(try client.send(#"{"op":"hello","token":"alice-token-0123456789","id":2}"#).first?["ok"] == true)
        try admin.send(#"{"op":"set","key":"public.news","value":1}"#, #"{"op":"set","key":"sky.a","value":2}"#)
        #expect(try client.pending().isEmpty, "alice observes nothing yet; public.* is not hers")
    }
}
