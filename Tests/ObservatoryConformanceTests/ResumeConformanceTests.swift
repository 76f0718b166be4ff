import Foundation
import ObservatoryServer
import Testing

/// docs/protocol.md, "Resuming, progress, session-bound keys, retry-safe writes".
@Suite struct ResumeConformanceTests {
    // MARK: Resume

    @Test func observeFromARevisionReplaysTheMissedEventsExactlyAsFirstSentThenGoesLive() throws {
        try withServer { server in
            let watcher = try server.connect(name: "watcher")
            _ = try watcher.call(["op": "observe", "prefix": "room."])
            let writer = try server.connect(name: "alice")
            _ = try writer.call(["op": "set", "key": "room.a", "value": 1])
            let seen = try watcher.call(["op": "ping"]).integer("revision") ?? -1
            _ = try writer.call(["op": "set", "key": "room.a", "value": 2])
            _ = try writer.call(["op": "set", "key": "other", "value": true])
            _ = try writer.call(["op": "set", "key": "room.b", "value": "x"])
            let deleted = try #require(try writer.call(["op": "delete", "key": "room.a"]).integer("version"))
            let live = try watcher.events(through: { $0.string("event") == "delete" })
            watcher.close()

            let resumed = try server.connect(name: "watcher")
            let epoch = try #require(try resumed.call(["op": "ping"]).string("epoch"))
            let reply = try resumed.call(["op": "observe", "prefix": "room.", "fromRevision": seen, "epoch": epoch])
            #expect(reply.ok == true && reply["resumed"] == .bool(true), "\(reply)")
            #expect(server.revisions.isLatest(reply.integer("revision"), deleted), "\(reply)")
            #expect(reply["values"] == nil, "a resumed observe has no snapshot: \(reply)")
            let replayed = try (0..<3).map { _ in try resumed.nextEvent() }
            #expect(replayed.map(\.text) == live.dropFirst().map(\.text), "the same bytes, in revision order")
            _ = try writer.call(["op": "set", "key": "room.c", "value": 3])
            let next = try resumed.nextEvent()
            #expect(
                next.string("key") == "room.c" && server.revisions.isNext(next.integer("version"), after: deleted),
                "then live: \(next)")
        }
    }

    @Test func aResumeWithinTheWindowSendsNothingTwiceWhileWritersKeepWriting() throws {
        try withServer { server in
            let writer = try server.connect(name: "alice")
            var versions: [Int64] = []
            for value in 1...20 {
                versions.append(try writer.call(["op": "set", "key": "k", "value": value]).integer("version") ?? -1)
            }
            // Writes go on while the observe is answered; every version after the tenth arrives once, in order.
            for value in 21...40 { try writer.send(["op": "set", "key": "k", "value": value]) }
            let reader = try server.connect()
            let reply = try reader.call(["op": "observe", "key": "k", "fromRevision": versions[9]])
            #expect(reply["resumed"] == .bool(true), "\(reply)")
            let events = try reader.events(through: { $0.integer("new") == 40 })
            versions += try (21...40).map { _ in try writer.nextFrame().integer("version") ?? -1 }
            #expect(server.revisions.areSuccessive(versions), "\(versions)")
            #expect(events.compactMap { $0.integer("version") } == Array(versions[10...]))
        }
    }

    @Test func anotherEpochOrAnOldRevisionGetsASnapshotWithResumedFalse() throws {
        try withServer({ $0.limits.historyChanges = 10_000 }) { server in
            let client = try server.connect()
            let first = try #require(try client.call(["op": "set", "key": "k", "value": 1]).integer("version"))
            let otherEpoch = try client.call(["op": "observe", "key": "k", "fromRevision": 0, "epoch": "not-this-one"])
            #expect(otherEpoch["resumed"] == .bool(false), "\(otherEpoch)")
            #expect(otherEpoch["values"]?.firstObject?["value"] == .integer(1), "a full snapshot: \(otherEpoch)")
            // 99 on a single daemon: a revision no change has reached.
            let future = try client.call(["op": "observe", "key": "k", "fromRevision": first + 98])
            #expect(future["resumed"] == .bool(false) && server.revisions.isLatest(future.integer("revision"), first))
            for value in 2...10_005 { try client.send(["op": "set", "key": "k", "value": value]) }
            let ping = try client.call(["op": "ping"], timeout: .seconds(120))
            let last = try #require(try client.call(["op": "get", "key": "k"]).integer("version"))
            #expect(server.revisions.isLatest(ping.integer("revision"), last) && last >= first + 10_004, "\(ping)")
            let tooOld = try server.connect()
            let reply = try tooOld.call(["op": "observe", "key": "k", "fromRevision": first])
            #expect(reply["resumed"] == .bool(false), "10,004 changes since: more than the window holds")
            #expect(reply["values"]?.arrayCount == 1)
            let recent = try tooOld.call(["op": "observe", "key": "k", "fromRevision": last - 1])
            #expect(recent["resumed"] == .bool(true))
            #expect(try tooOld.nextEvent().integer("version") == last)
        }
    }

    @Test func fromRevisionMustBeAnIntegerAndEpochNeedsIt() throws {
        try withServer { server in
            let client = try server.connect()
            #expect(try client.call(["op": "observe", "key": "k", "fromRevision": -1]).errorCode == "bad_request")
            #expect(try client.call(["op": "observe", "key": "k", "fromRevision": "3"]).errorCode == "bad_request")
            #expect(try client.call(["op": "observe", "key": "k", "epoch": "e"]).errorCode == "bad_request")
            let plain = try client.call(["op": "observe", "key": "k"])
            #expect(plain["resumed"] == nil, "no fromRevision, no resumed: \(plain)")
        }
    }

    // MARK: Progress

    @Test func aPingPipelinedBehindTheObserversOwnWriteFollowsThatWritesEvent() throws {
        try withServer { server in
            let client = try server.connect()
            let start = try #require(try client.call(["op": "observe", "prefix": ""]).integer("revision"))
            // One segment: the write's event is made while the ping waits in the same batch.
            try client.send(raw: #"{"op":"set","key":"k","value":1,"id":1}"# + "\n" + #"{"op":"ping","id":2}"# + "\n")
            let frames = try (0..<3).map { _ in try client.nextFrame() }
            #expect(
                frames.map { $0.isEvent ? "event" : "reply \($0.id.map(String.init(describing:)) ?? "")" }
                    == ["reply 1", "event", "reply 2"], "\(frames)")
            let written = try #require(frames[0].integer("version"))
            #expect(server.revisions.isNext(written, after: start))
            #expect(server.revisions.isLatest(frames[2].integer("revision"), written), "\(frames[2])")
        }
    }

    @Test func aPingReplyFollowsEveryEventUpToItsRevision() throws {
        try withServer { server in
            let watcher = try server.connect()
            let start = try #require(try watcher.call(["op": "observe", "prefix": ""]).integer("revision"))
            let writer = try server.connect()
            for round in 0..<50 {
                try writer.send(["op": "set", "key": "k\(round % 7)", "value": round])
                try watcher.send(["op": "ping", "id": "p\(round)"])
            }
            // 50 events and 50 ping replies, in the order they arrived: an event's version, a ping's revision.
            let frames = try (0..<100).map { _ in
                let frame = try watcher.nextFrame()
                return (isEvent: frame.isEvent, revision: frame.integer(frame.isEvent ? "version" : "revision") ?? -1)
            }
            var highestEvent = start
            for (index, frame) in frames.enumerated() {
                guard !frame.isEvent else {
                    highestEvent = max(highestEvent, frame.revision)
                    continue
                }
                let late = frames[(index + 1)...].filter { $0.isEvent && $0.revision <= frame.revision }
                #expect(late.isEmpty, "ping says \(frame.revision), yet events up to it came after it: \(late)")
                // On a single daemon every change is an event here (prefix ""): a ping cannot be ahead of them.
                // A cluster node's revision also moves with changes outside the test's prefix.
                #expect(
                    server.revisions.isCluster || frame.revision <= highestEvent,
                    "ping says \(frame.revision), events only reached \(highestEvent)")
            }
        }
    }

    // MARK: Session-bound keys

    @Test func aSessionBoundKeyIsDeletedWhenItsSessionEndsWithTheOwnersAuthorAndAReason() throws {
        try withServer { server in
            let watcher = try server.connect()
            _ = try watcher.call(["op": "observe", "prefix": "presence."])
            let alice = try server.connect()
            let hello = try alice.call(["op": "hello", "name": "alice"])
            let set = try alice.call(["op": "set", "key": "presence.alice", "value": "online", "ephemeral": true])
            #expect(set.ok == true && set["changed"] == .bool(true), "\(set)")
            let created = try watcher.nextEvent()
            #expect(created["ephemeral"] == .bool(true), "\(created)")
            let got = try watcher.call(["op": "get", "key": "presence.alice"])
            #expect(got["ephemeral"] == .bool(true), "\(got)")
            let snapshot = try server.connect().call(["op": "observe", "key": "presence.alice"])
            #expect(snapshot["values"]?.firstObject?["ephemeral"] == .bool(true), "\(snapshot)")
            alice.close()
            let deleted = try watcher.nextEvent()
            #expect(deleted.string("event") == "delete" && deleted.string("key") == "presence.alice", "\(deleted)")
            #expect(deleted.string("reason") == "session_ended", "\(deleted)")
            #expect(deleted.string("author") == "alice" && deleted.string("session") == hello.string("session"))
            #expect(deleted["old"] == .string("online"))
            #expect(try watcher.call(["op": "get", "key": "presence.alice"]).errorCode == "not_found")
        }
    }

    @Test func aLaterSetWithoutTheFlagMakesTheKeyLastingAgain() throws {
        try withServer { server in
            let owner = try server.connect()
            _ = try owner.call(["op": "set", "key": "lock", "value": "mine", "ephemeral": true, "ifVersion": 0])
            let rebound = try owner.call(["op": "set", "key": "lock", "value": "mine"])
            #expect(rebound["changed"] == .bool(true), "the binding changed: \(rebound)")
            let watcher = try server.connect()
            _ = try watcher.call(["op": "observe", "prefix": ""])
            let other = try server.connect()
            _ = try other.call(["op": "set", "key": "temporary", "value": 1, "ephemeral": true])
            owner.close()
            other.close()
            let events = try watcher.events(through: { $0.string("event") == "delete" })
            #expect(events.last?.string("key") == "temporary", "only the key still bound is deleted: \(events)")
            let lock = try watcher.call(["op": "get", "key": "lock"])
            #expect(lock["value"] == .string("mine") && lock["ephemeral"] == nil, "\(lock)")
        }
    }

    @Test func aDeleteByAnotherSessionIsAnOrdinaryDelete() throws {
        try withServer { server in
            let watcher = try server.connect()
            _ = try watcher.call(["op": "observe", "key": "k"])
            let owner = try server.connect()
            _ = try owner.call(["op": "set", "key": "k", "value": 1, "ephemeral": true])
            _ = try watcher.nextEvent()
            _ = try server.connect().call(["op": "delete", "key": "k"])
            let deleted = try watcher.nextEvent()
            #expect(deleted["reason"] == nil, "\(deleted)")
            owner.close()
            _ = try server.connect().call(["op": "set", "key": "k", "value": 2])
            #expect(try watcher.nextEvent()["new"] == .integer(2), "the ended session deleted nothing more")
        }
    }

    @Test func sessionBoundMustBeABoolean() throws {
        try withServer { server in
            let client = try server.connect()
            let reply = try client.call(["op": "set", "key": "k", "value": 1, "ephemeral": "yes"])
            #expect(reply.errorCode == "bad_request", "\(reply)")
        }
    }

    // MARK: Retry-safe writes

    @Test func aWriteSentAgainWithTheSameRequestIdIsAppliedOnce() throws {
        try withServer { server in
            let watcher = try server.connect()
            let start = try #require(try watcher.call(["op": "observe", "key": "counter"]).integer("revision"))
            let writer = try server.connect()
            let first = try writer.call(["op": "set", "key": "counter", "value": 1, "requestId": "r-1"])
            let version = try #require(first.integer("version"))
            #expect(first["duplicate"] == nil && server.revisions.isNext(version, after: start), "\(first)")
            let again = try server.connect().call(["op": "set", "key": "counter", "value": 1, "requestId": "r-1"])
            #expect(again["duplicate"] == .bool(true), "\(again)")
            #expect(
                again.integer("version") == version && again["changed"] == .bool(true)
                    && again.string("key") == "counter")
            let delete = try writer.call(["op": "delete", "key": "counter", "requestId": "r-2"])
            let deleteAgain = try writer.call(["op": "delete", "key": "counter", "requestId": "r-2"])
            #expect(deleteAgain["duplicate"] == .bool(true), "not not_found: \(deleteAgain)")
            #expect(deleteAgain.integer("version") == delete.integer("version"))
            let events = try watcher.events(arrivingWithin: .milliseconds(200))
            #expect(events.map { $0.string("event") } == ["update", "delete"], "one event per write: \(events)")
        }
    }

    @Test func requestIdMustBeOneTo128Bytes() throws {
        try withServer { server in
            let client = try server.connect()
            #expect(try client.call(["op": "set", "key": "k", "value": 1, "requestId": ""]).errorCode == "bad_request")
            let long = String(repeating: "r", count: 129)
            #expect(
                try client.call(["op": "set", "key": "k", "value": 1, "requestId": long]).errorCode == "bad_request")
            #expect(try client.call(["op": "delete", "key": "k", "requestId": 7]).errorCode == "bad_request")
            let longest = String(repeating: "r", count: 128)
            #expect(try client.call(["op": "set", "key": "k", "value": 1, "requestId": longest]).ok == true)
        }
    }

    // MARK: Across restarts

    @Test func withStorageResumeRequestIdsAndSessionBoundKeysSurviveARestartAndACompaction() throws {
        let directory = NSTemporaryDirectory() + "observatory-resume-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ServerConfiguration) -> Void = {
            $0.fsync = .always
            $0.dataDirectory = directory
        }
        let (epoch, live, ownerSession) = try withServer(configure) { server in
            let watcher = try server.connect()
            _ = try watcher.call(["op": "observe", "prefix": ""])
            let owner = try server.connect()
            let hello = try owner.call(["op": "hello", "name": "alice"])
            _ = try owner.call(["op": "set", "key": "a", "value": 1, "requestId": "before-compaction"])
            _ = try owner.call(["op": "set", "key": "presence.alice", "value": true, "ephemeral": true])
            try server.server.store.storage?.compactNow()
            _ = try owner.call(["op": "set", "key": "a", "value": 2, "requestId": "after-compaction"])
            let live = try watcher.events(through: { $0.integer("version") == 3 })
            // The process "dies" with the session open: stop() ends sessions too, so
            // the session-bound key's deletion below must come from this stop or the restart.
            return (hello.string("epoch"), live, hello.string("session"))
        }
        try withServer(configure) { server in
            let client = try server.connect()
            #expect(try client.call(["op": "ping"]).string("epoch") == epoch)
            let reply = try client.call(["op": "observe", "prefix": "", "fromRevision": 0, "epoch": epoch ?? ""])
            #expect(reply["resumed"] == .bool(true), "the window survives compaction and restart: \(reply)")
            let replayed = try client.events(through: {
                $0.string("key") == "presence.alice" && $0.string("event") == "delete"
            })
            #expect(Array(replayed.prefix(3)).map(\.text) == live.map(\.text), "the same bytes after a restart")
            let deletion = try #require(replayed.last)
            #expect(deletion.string("reason") == "session_ended" && deletion.string("session") == ownerSession)
            for requestId in ["before-compaction", "after-compaction"] {
                let again = try client.call(["op": "set", "key": "a", "value": 9, "requestId": requestId])
                #expect(again["duplicate"] == .bool(true), "\(requestId): \(again)")
            }
            #expect(try client.call(["op": "get", "key": "a"])["value"] == .integer(2))
        }
    }
}

extension JSONTree {
    /// The number of elements, for an array.
    var arrayCount: Int? {
        guard case .array(let elements) = self else { return nil }
        return elements.count
    }

    /// The first element, for an array.
    var firstObject: JSONTree? {
        guard case .array(let elements) = self else { return nil }
        return elements.first
    }
}
