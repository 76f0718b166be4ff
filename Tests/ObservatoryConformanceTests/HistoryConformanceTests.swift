import Foundation
import ObservatoryServer
import Testing

/// docs/protocol.md, "History: who changed what, and when": the held changes of a
/// key or prefix, each its event as sent plus `at`, filtered by author, session
/// and a revision range, paged with `limit` and `more`, oldest or newest first,
/// with `revision` and `horizon`, under the read rights of `observe`.
@Suite struct HistoryConformanceTests {
    private static func milliseconds() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    private func changes(_ reply: Frame) -> [JSONTree] {
        reply["changes"]?.array ?? []
    }

    private func versions(_ reply: Frame) -> [Int64] {
        changes(reply).compactMap { $0["version"]?.integer }
    }

    /// A change of a history reply without its `at`: what its event was.
    private func withoutAt(_ change: JSONTree) -> JSONTree {
        var fields = change.object ?? [:]
        fields["at"] = nil
        return .object(fields)
    }

    @Test func eachChangeIsItsEventAsFirstSentPlusTheServersClock() throws {
        try withServer { server in
            let alice = try server.connect(name: "alice")
            let watcher = try server.connect(name: "watcher")
            _ = try watcher.call(["op": "observe", "key": "door.locked"])
            let before = Self.milliseconds()
            _ = try alice.call(["op": "set", "key": "door.locked", "value": true])
            _ = try alice.call(["op": "set", "key": "door.locked", "value": ["by": "alice", "n": 2]])
            _ = try alice.call(["op": "delete", "key": "door.locked"])
            let after = Self.milliseconds()
            let events = try (0..<3).map { _ in JSONTree(try watcher.nextEvent().object) }
            let reply = try alice.call(["op": "history", "key": "door.locked"])
            #expect(reply.ok == true, "\(reply)")
            #expect(changes(reply).map(withoutAt) == events, "\(reply)")
            for change in changes(reply) {
                let at = change["at"]?.integer ?? -1
                #expect(at >= before - 1_000 && at <= after + 1_000, "at \(at) outside [\(before), \(after)]")
            }
            #expect(reply["more"] == .bool(false))
            #expect(server.revisions.isLatest(reply.integer("revision"), versions(reply).last ?? 0), "\(reply)")
            #expect((reply.integer("horizon") ?? .max) < versions(reply).first ?? 0, "\(reply)")
        }
    }

    @Test func aPrefixTakesTheChangesOfItsKeysOnlyAndAKeyOnlyItsOwn() throws {
        try withServer { server in
            let client = try server.connect(name: "alice")
            for key in ["room.a", "roomy", "room.b", "other"] {
                _ = try client.call(["op": "set", "key": key, "value": key])
            }
            let prefix = try client.call(["op": "history", "prefix": "room."])
            #expect(changes(prefix).compactMap { $0["key"]?.string } == ["room.a", "room.b"], "\(prefix)")
            let key = try client.call(["op": "history", "key": "room"])
            #expect(changes(key).isEmpty, "\(key)")
        }
    }

    @Test func authorAndSessionFiltersKeepOnlyThatWritersChanges() throws {
        try withServer { server in
            let alice = try server.connect(name: "alice")
            let aliceAgain = try server.connect(name: "alice")
            let bob = try server.connect(name: "bob")
            _ = try alice.call(["op": "set", "key": "f.k", "value": 1])
            _ = try bob.call(["op": "set", "key": "f.k", "value": 2])
            _ = try aliceAgain.call(["op": "set", "key": "f.k", "value": 3])
            let byAlice = try bob.call(["op": "history", "key": "f.k", "author": "alice"])
            #expect(changes(byAlice).compactMap { $0["new"]?.integer } == [1, 3], "\(byAlice)")
            let first = try bob.call(["op": "history", "key": "f.k"])
            let aliceSession = changes(first).first?["session"]?.string ?? "?"
            let inSession = try bob.call(["op": "history", "key": "f.k", "session": aliceSession])
            #expect(changes(inSession).compactMap { $0["new"]?.integer } == [1], "\(inSession)")
            let both = try bob.call(["op": "history", "key": "f.k", "author": "bob", "session": aliceSession])
            #expect(changes(both).isEmpty, "\(both)")
        }
    }

    @Test func theRangeIsFromRevisionExclusiveToToRevisionInclusive() throws {
        try withServer { server in
            let client = try server.connect(name: "alice")
            var written: [Int64] = []
            for value in 1...5 {
                written.append(try client.call(["op": "set", "key": "r.k", "value": value]).integer("version") ?? 0)
            }
            let middle = try client.call(
                ["op": "history", "key": "r.k", "fromRevision": written[0], "toRevision": written[3]])
            #expect(versions(middle) == Array(written[1...3]), "\(middle)")
            let after = try client.call(["op": "history", "key": "r.k", "fromRevision": written[4]])
            #expect(versions(after).isEmpty && after["more"] == .bool(false), "\(after)")
        }
    }

    @Test func limitPagesWithMoreOldestFirstAndNewestFirst() throws {
        try withServer { server in
            let client = try server.connect(name: "alice")
            var written: [Int64] = []
            for value in 1...5 {
                written.append(try client.call(["op": "set", "key": "p.k", "value": value]).integer("version") ?? 0)
            }
            let first = try client.call(["op": "history", "key": "p.k", "limit": 2])
            #expect(versions(first) == Array(written[0...1]) && first["more"] == .bool(true), "\(first)")
            let next = try client.call(["op": "history", "key": "p.k", "limit": 3, "fromRevision": written[1]])
            #expect(versions(next) == Array(written[2...4]) && next["more"] == .bool(false), "\(next)")
            let newest = try client.call(["op": "history", "key": "p.k", "limit": 2, "newestFirst": true])
            #expect(versions(newest) == [written[4], written[3]] && newest["more"] == .bool(true), "\(newest)")
            let older = try client.call(
                ["op": "history", "key": "p.k", "newestFirst": true, "toRevision": written[3] - 1])
            #expect(versions(older) == [written[2], written[1], written[0]], "\(older)")
            #expect(older["more"] == .bool(false), "\(older)")
        }
    }

    @Test func badFieldsAreBadRequests() throws {
        try withServer { server in
            let client = try server.connect()
            let requests: [[String: Any]] = [
                ["op": "history"],
                ["op": "history", "key": "a", "prefix": "a"],
                ["op": "history", "key": "a", "limit": 0],
                ["op": "history", "key": "a", "limit": 1_001],
                ["op": "history", "key": "a", "limit": "5"],
                ["op": "history", "key": "a", "fromRevision": -1],
                ["op": "history", "key": "a", "toRevision": "9"],
                ["op": "history", "key": "a", "author": 7],
                ["op": "history", "key": "a", "session": false],
                ["op": "history", "key": "a", "newestFirst": "yes"],
            ]
            for request in requests {
                #expect(try client.call(request).errorCode == "bad_request", "\(request)")
            }
            #expect(try client.call(["op": "history", "key": "a", "limit": 1_000]).ok == true)
        }
    }

    @Test func readRightsAreThoseOfObserve() throws {
        try withServer({
            $0.auth.tokens = [
                AccessToken(token: "alice-token", author: "alice", read: ["*"], write: ["*"]),
                AccessToken(token: "guest-token", author: "guest", read: ["public.*"], write: []),
            ]
        }) { server in
            let alice = try server.connect()
            _ = try alice.call(["op": "hello", "token": "alice-token"])
            _ = try alice.call(["op": "set", "key": "public.news", "value": "hi"])
            _ = try alice.call(["op": "set", "key": "secret.plan", "value": "x"])
            let guest = try server.connect()
            _ = try guest.call(["op": "hello", "token": "guest-token"])
            #expect(try guest.call(["op": "history", "key": "secret.plan"]).errorCode == "forbidden")
            #expect(try guest.call(["op": "history", "key": "secret.none"]).errorCode == "forbidden")
            #expect(try guest.call(["op": "history", "prefix": ""]).errorCode == "forbidden")
            let allowed = try guest.call(["op": "history", "prefix": "public."])
            #expect(changes(allowed).compactMap { $0["key"]?.string } == ["public.news"], "\(allowed)")
        }
    }

    /// The history is capped in bytes (at least 64 MiB, docs/protocol.md "Memory"):
    /// 150 changes of 500 kB values pass it, so the oldest are forgotten and the
    /// horizon rises above them. A reply is capped too: it ends early with `more`.
    @Test func everyChangeAboveTheHorizonIsHeldAndNoneAtOrBelowIt() throws {
        try withServer { server in
            let client = try server.connect(name: "alice")
            var written: [Int64] = []
            for value in 0..<150 {
                let text = String(repeating: Character(UnicodeScalar(UInt8(97 + value % 26))), count: 500_000)
                let reply = try client.call(["op": "set", "key": "h.k", "value": "\(value)" + text])
                written.append(try #require(reply.integer("version"), "\(reply)"))
            }
            let oldest = try client.call(["op": "history", "key": "h.k", "limit": 1_000])
            let horizon = try #require(oldest.integer("horizon"), "\(oldest.text.prefix(200))")
            #expect(horizon > written[0] && horizon < written[149], "horizon \(horizon), written \(written)")
            #expect(versions(oldest).first == written.first { $0 > horizon }, "the oldest held is the first above it")
            #expect(versions(oldest).count < 1_000 && oldest["more"] == .bool(true), "a reply is capped in bytes")
            let below = try client.call(["op": "history", "key": "h.k", "toRevision": horizon])
            #expect(changes(below).isEmpty, "nothing at or below the horizon is held")
        }
    }
}
