import Foundation
import ObservatoryServer
import ObservatoryTestSupport
import Testing

/// docs/protocol.md, "Expiring keys": `ttl` on `set`, the `expired` delete, the
/// seconds left in replies, snapshots and events, restarting and ending the
/// clock, session-bound and expiring keys, and expiry across restarts; against
/// a local daemon and against a cluster node.
struct ExpiryConformanceTests {
    /// How late after its deadline a key may go: the protocol's bound, 1 s for
    /// a local daemon and 2 s for a cluster node.
    private static let lateness =
        Duration.seconds(ProcessInfo.processInfo.environment["OBSERVATORY_CONFORMANCE_ETCD"]?.isEmpty ?? true ? 1 : 2)

    @Test func anExpiringKeyIsDeletedWithinASecondAfterItsTimeByItsWriterWithReasonExpired() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "door.open"])
            let writer = try server.connect()
            let hello = try writer.call(["op": "hello", "name": "alice"])
            let sent = ContinuousClock.now
            let set = try writer.call(["op": "set", "key": "door.open", "value": true, "ttl": 1])
            let answered = ContinuousClock.now
            #expect(set.ok == true, "\(set)")
            let update = try observer.nextEvent()
            #expect(update["ttl"] == .integer(1), "an update of an expiring key carries ttl: \(update)")
            let delete = try observer.nextEvent(timeout: .seconds(5))
            let arrived = ContinuousClock.now
            #expect(delete.event == "delete", "\(delete)")
            #expect(delete.string("reason") == "expired", "\(delete)")
            #expect(delete.string("author") == "alice")
            #expect(delete["session"] == hello["session"])
            #expect(delete["old"] == .bool(true))
            #expect(arrived - sent >= .seconds(1), "deleted before its time: \(arrived - sent)")
            #expect(arrived - answered <= .seconds(1) + Self.lateness, "deleted late: \(arrived - answered)")
            let get = try writer.call(["op": "get", "key": "door.open"])
            #expect(get.errorCode == "not_found", "\(get)")
        }
    }

    @Test(arguments: ["0", "-5", "31536001", "2.5", #""10""#, "true", "[1]"])
    func aTTLThatIsNotAWholeNumberFromOneToAYearIsABadRequest(ttl: String) throws {
        try withServer { server in
            let client = try server.connect()
            let reply = try client.call(fields: #""op":"set","key":"k","value":1,"ttl":\#(ttl)"#)
            #expect(reply.errorCode == "bad_request", "ttl \(ttl): \(reply)")
            #expect(try client.call(["op": "get", "key": "k"]).errorCode == "not_found")
        }
    }

    @Test func theLongestTTLIsAccepted() throws {
        try withServer { server in
            let client = try server.connect()
            let reply = try client.call(["op": "set", "key": "k", "value": 1, "ttl": 31_536_000])
            #expect(reply.ok == true, "\(reply)")
            #expect(try client.call(["op": "get", "key": "k"]).integer("ttl") == 31_536_000)
        }
    }

    @Test func getAndSnapshotsCarryTheWholeSecondsLeftRoundedUp() throws {
        try withServer { server in
            let client = try server.connect()
            _ = try client.call(["op": "set", "key": "claim.a", "value": "x", "ttl": 100])
            _ = try client.call(["op": "set", "key": "claim.b", "value": "y"])
            let get = try client.call(["op": "get", "key": "claim.a"])
            #expect(get.integer("ttl") == 100 || get.integer("ttl") == 99, "\(get)")
            let lasting = try client.call(["op": "get", "key": "claim.b"])
            #expect(lasting["ttl"] == nil, "a lasting key has no ttl: \(lasting)")
            let observe = try client.call(["op": "observe", "prefix": "claim."])
            guard case .array(let values)? = observe["values"] else {
                Issue.record("no values: \(observe)")
                return
            }
            let ttls = values.map { $0["ttl"] }
            #expect(ttls.count == 2)
            #expect(ttls.contains(.integer(100)) || ttls.contains(.integer(99)), "\(observe)")
            #expect(ttls.contains(nil), "\(observe)")
        }
    }

    @Test func aSetWithTTLRestartsTheClockEvenWhenItChangesNothing() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "k"])
            let client = try server.connect()
            _ = try client.call(["op": "set", "key": "k", "value": 1, "ttl": 1])
            let restarted = ContinuousClock.now
            let again = try client.call(["op": "set", "key": "k", "value": 1, "ttl": 3])
            #expect(again["changed"] == .bool(false), "\(again)")
            #expect(try client.call(["op": "get", "key": "k"]).integer("ttl") == 3)
            let events = try observer.events(through: { $0.event == "delete" }, timeout: .seconds(10))
            #expect(events.map { $0.event } == ["update", "delete"], "no event for the restart: \(events)")
            #expect(ContinuousClock.now - restarted >= .seconds(3), "the first clock was not restarted")
        }
    }

    @Test func aRestartedClockKeepsTheKeysVersionForIfVersion() throws {
        try withServer { server in
            let client = try server.connect()
            let set = try client.call(["op": "set", "key": "k", "value": 1, "ttl": 60])
            let version = try #require(set.integer("version"))
            let again = try client.call(["op": "set", "key": "k", "value": 1, "ttl": 90])
            #expect(again.integer("version") == version, "\(again)")
            #expect(try client.call(["op": "get", "key": "k"]).integer("version") == version)
            let guarded = try client.call(["op": "set", "key": "k", "value": 2, "ifVersion": version])
            #expect(guarded.ok == true, "ifVersion names the version the restart kept: \(guarded)")
            let changed = try #require(guarded.integer("version"))
            let stale = try client.call(["op": "delete", "key": "k", "ifVersion": version])
            #expect(stale.errorCode == "conflict", "\(stale)")
            #expect(try client.call(["op": "delete", "key": "k", "ifVersion": changed]).ok == true)
        }
    }

    @Test func aSetWithTTLInABatchExpiresAsASingleSetDoes() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "prefix": "b."])
            let writer = try server.connect()
            let hello = try writer.call(["op": "hello", "name": "alice"])
            let sent = ContinuousClock.now
            let batch = try writer.call([
                "op": "batch",
                "ops": [
                    ["op": "set", "key": "b.short", "value": 1, "ttl": 1],
                    ["op": "set", "key": "b.lasting", "value": 2],
                ],
            ])
            let answered = ContinuousClock.now
            #expect(batch.ok == true, "\(batch)")
            let events = try observer.events(through: { $0.event == "delete" }, timeout: .seconds(5))
            let arrived = ContinuousClock.now
            #expect(events.map { $0.event } == ["update", "update", "delete"], "\(events)")
            #expect(events.first?["ttl"] == .integer(1) && events.dropFirst().first?["ttl"] == nil, "\(events)")
            let delete = try #require(events.last)
            #expect(delete.string("key") == "b.short" && delete.string("reason") == "expired", "\(delete)")
            #expect(delete.string("author") == "alice" && delete["session"] == hello["session"], "\(delete)")
            #expect(arrived - sent >= .seconds(1), "deleted before its time: \(arrived - sent)")
            #expect(arrived - answered <= .seconds(1) + Self.lateness, "deleted late: \(arrived - answered)")
            #expect(try writer.call(["op": "get", "key": "b.lasting"])["ttl"] == nil)
        }
    }

    @Test func aSetWithTTLInABatchRestartsTheClockKeepingTheVersion() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "k"])
            let client = try server.connect()
            let set = try client.call(["op": "set", "key": "k", "value": 1, "ttl": 1])
            let version = try #require(set.integer("version"))
            let restarted = ContinuousClock.now
            let batch = try client.call(["op": "batch", "ops": [["op": "set", "key": "k", "value": 1, "ttl": 3]]])
            guard case .array(let results)? = batch["results"], let result = results.first else {
                Issue.record("no results: \(batch)")
                return
            }
            #expect(result["changed"] == .bool(false) && result["version"] == .integer(version), "\(batch)")
            let get = try client.call(["op": "get", "key": "k"])
            #expect(get.integer("ttl") == 3 && get.integer("version") == version, "\(get)")
            let events = try observer.events(through: { $0.event == "delete" }, timeout: .seconds(10))
            #expect(events.map { $0.event } == ["update", "delete"], "no event for the restart: \(events)")
            #expect(ContinuousClock.now - restarted >= .seconds(3), "the first clock was not restarted")
        }
    }

    @Test func aSetWithoutTTLMakesTheKeyLastingAgain() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "k"])
            let client = try server.connect()
            _ = try client.call(["op": "set", "key": "k", "value": 1, "ttl": 1])
            let lasting = try client.call(["op": "set", "key": "k", "value": 1])
            #expect(lasting["changed"] == .bool(true), "becoming lasting is a change: \(lasting)")
            #expect(try client.call(["op": "get", "key": "k"])["ttl"] == nil)
            let events = try observer.events(arrivingWithin: .seconds(1) + Self.lateness + .milliseconds(500))
            #expect(events.allSatisfy { $0.event == "update" }, "\(events)")
            #expect(try client.call(["op": "get", "key": "k"]).ok == true)
        }
    }

    @Test func aDeleteEndsTheExpiry() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "k"])
            let client = try server.connect()
            _ = try client.call(["op": "set", "key": "k", "value": 1, "ttl": 1])
            _ = try client.call(["op": "delete", "key": "k"])
            _ = try client.call(["op": "set", "key": "k", "value": 2])
            let events = try observer.events(arrivingWithin: .seconds(1) + Self.lateness + .milliseconds(500))
            #expect(events.map { $0.event } == ["update", "delete", "update"], "\(events)")
            #expect(events.allSatisfy { $0["reason"] == nil }, "\(events)")
            #expect(try client.call(["op": "get", "key": "k"])["value"] == .integer(2))
        }
    }

    @Test func aSessionBoundExpiringKeyGoesWhenItsSessionEndsFirst() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "prefix": "presence."])
            let owner = try server.connect(name: "alice")
            _ = try owner.call(["op": "set", "key": "presence.alice", "value": true, "ephemeral": true, "ttl": 600])
            owner.close()
            let events = try observer.events(through: { $0.event == "delete" })
            #expect(events.last?.string("reason") == "session_ended", "\(events)")
        }
    }

    @Test func aSessionBoundExpiringKeyGoesWhenItExpiresFirst() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "prefix": "presence."])
            let owner = try server.connect(name: "alice")
            _ = try owner.call(["op": "set", "key": "presence.alice", "value": true, "ephemeral": true, "ttl": 1])
            let events = try observer.events(through: { $0.event == "delete" }, timeout: .seconds(5))
            #expect(events.last?.string("reason") == "expired", "\(events)")
            #expect(try owner.call(["op": "ping"]).ok == true, "the session goes on")
        }
    }

    @Test func aKeyThatExpiredWhileTheServerWasDownIsDeletedWithItsEventAtStart() throws {
        let directory = NSTemporaryDirectory() + "observatory-expiry-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ServerConfiguration) -> Void = {
            $0.fsync = .always
            $0.dataDirectory = directory
        }
        let (epoch, session) = try withServer(configure) { server in
            let client = try server.connect()
            let hello = try client.call(["op": "hello", "name": "alice"])
            _ = try client.call(["op": "set", "key": "short", "value": 1, "ttl": 1])
            _ = try client.call(["op": "set", "key": "long", "value": 2, "ttl": 3_600])
            // Stopped before the short key's time: it expires while the server is down.
            return (hello.string("epoch") ?? "", hello["session"])
        }
        let stopped = ContinuousClock.now
        try waitUntil("the short key's time passes while no server runs", timeout: .seconds(5)) {
            ContinuousClock.now >= stopped + .seconds(1) + .milliseconds(100)
        }
        try withServer(configure) { server in
            let client = try server.connect()
            let replay = try client.call(["op": "observe", "prefix": "", "fromRevision": 0, "epoch": epoch])
            #expect(replay["resumed"] == .bool(true), "\(replay)")
            let events = try client.events(through: { $0.event == "delete" })
            let delete = try #require(events.last)
            #expect(delete.string("key") == "short" && delete.string("reason") == "expired", "\(events)")
            #expect(delete.string("author") == "alice")
            #expect(delete["session"] == session)
            #expect(try client.call(["op": "get", "key": "short"]).errorCode == "not_found")
            let long = try client.call(["op": "get", "key": "long"])
            #expect((3_598...3_600).contains(long.integer("ttl") ?? 0), "the expiry survives the restart: \(long)")
        }
    }
}
