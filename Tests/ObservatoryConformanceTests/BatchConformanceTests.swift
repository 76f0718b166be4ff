import Foundation
import ObservatoryServer
import Testing

/// docs/protocol.md, "Batches, expiring keys, history": the `batch` op.
@Suite struct BatchConformanceTests {
    private func set(_ key: String, _ value: Any, ifVersion: Int64? = nil) -> [String: Any] {
        var op: [String: Any] = ["op": "set", "key": key, "value": value]
        if let ifVersion { op["ifVersion"] = ifVersion }
        return op
    }

    @Test func aBatchAppliesEveryOperationAtOneRevisionWithOneResultEachInOrder() throws {
        try withServer { server in
            let client = try server.connect(name: "alice")
            let lock = try #require(try client.call(["op": "set", "key": "lock", "value": 1]).integer("version"))
            let same = try #require(try client.call(["op": "set", "key": "same", "value": 1]).integer("version"))
            let queue = try #require(try client.call(["op": "set", "key": "queue", "value": 7]).integer("version"))
            let reply = try client.call([
                "op": "batch",
                "ops": [
                    ["op": "check", "key": "lock", "ifVersion": lock], set("job", "printing"),
                    ["op": "delete", "key": "queue", "ifVersion": queue], set("same", 1),
                ],
            ])
            #expect(reply.ok == true, "\(reply)")
            let revision = try #require(reply.integer("revision"))
            #expect(server.revisions.isNext(revision, after: queue), "\(reply)")
            let results = try #require(reply["results"]?.array)
            #expect(
                results == [
                    .object(["key": .string("lock"), "version": .integer(lock)]),
                    .object(["key": .string("job"), "version": .integer(revision), "changed": .bool(true)]),
                    .object(["key": .string("queue"), "version": .integer(revision)]),
                    .object(["key": .string("same"), "version": .integer(same), "changed": .bool(false)]),
                ], "\(reply)")
            #expect(try client.call(["op": "get", "key": "job"]).integer("version") == revision)
            #expect(try client.call(["op": "get", "key": "queue"]).errorCode == "not_found")
        }
    }

    @Test func aFailingOperationAppliesNothingAndNamesItsIndex() throws {
        try withServer { server in
            let client = try server.connect(name: "alice")
            let version = try #require(try client.call(["op": "set", "key": "a", "value": 1]).integer("version"))
            let conflict = try client.call([
                "op": "batch", "ops": [set("b", 2), set("a", 3, ifVersion: version + 5), set("c", 4)],
            ])
            #expect(conflict.errorCode == "conflict", "\(conflict)")
            #expect(conflict["error"]?["index"] == .integer(1), "\(conflict)")
            #expect(conflict["error"]?["version"] == .integer(version), "\(conflict)")
            let missing = try client.call(["op": "batch", "ops": [set("b", 2), ["op": "delete", "key": "nothing"]]])
            #expect(missing.errorCode == "not_found" && missing["error"]?["index"] == .integer(1), "\(missing)")
            let check = try client.call([
                "op": "batch", "ops": [["op": "check", "key": "a", "ifVersion": 0], set("b", 2)],
            ])
            #expect(check.errorCode == "conflict" && check["error"]?["index"] == .integer(0), "\(check)")
            #expect(try client.call(["op": "get", "key": "b"]).errorCode == "not_found", "nothing was applied")
            #expect(try client.call(["op": "ping"]).integer("revision") == version, "no revision was taken")
        }
    }

    @Test func rightsAreCheckedPerOperationWithItsIndex() throws {
        try withServer({
            $0.auth.tokens = [
                AccessToken(token: "alice-token", author: "alice", read: ["kitchen.*", "lock"], write: ["kitchen.*"])
            ]
        }) { server in
            let client = try server.connect()
            #expect(try client.call(["op": "hello", "token": "alice-token"]).ok == true)
            let write = try client.call(["op": "batch", "ops": [set("kitchen.a", 1), set("hall.b", 2)]])
            #expect(write.errorCode == "forbidden" && write["error"]?["index"] == .integer(1), "\(write)")
            let read = try client.call([
                "op": "batch",
                "ops": [
                    set("kitchen.a", 1), ["op": "check", "key": "lock", "ifVersion": 0],
                    ["op": "check", "key": "cellar", "ifVersion": 0],
                ],
            ])
            #expect(read.errorCode == "forbidden" && read["error"]?["index"] == .integer(2), "\(read)")
            #expect(try client.call(["op": "get", "key": "kitchen.a"]).errorCode == "not_found", "nothing applied")
            let allowed = try client.call([
                "op": "batch", "ops": [set("kitchen.a", 1), ["op": "check", "key": "lock", "ifVersion": 0]],
            ])
            #expect(allowed.ok == true, "a check needs read rights only: \(allowed)")
        }
    }

    @Test func aBatchThatChangesNothingTakesNoRevision() throws {
        try withServer { server in
            let client = try server.connect()
            let version = try #require(try client.call(["op": "set", "key": "a", "value": 1]).integer("version"))
            let reply = try client.call([
                "op": "batch", "ops": [set("a", 1), ["op": "check", "key": "b", "ifVersion": 0]],
            ])
            #expect(reply.integer("revision") == version, "\(reply)")
            #expect(reply["results"]?.array?.first?["changed"] == .bool(false), "\(reply)")
            #expect(try client.call(["op": "ping"]).integer("revision") == version)
        }
    }

    @Test func observersGetABatchsEventsAsOneRunInOperationOrder() throws {
        try withServer { server in
            let watcher = try server.connect(name: "watcher")
            _ = try watcher.call(["op": "observe", "prefix": "room."])
            let other = try server.connect(name: "bob")
            let writer = try server.connect(name: "alice")
            let keys = (0..<20).map { "room.k\(19 - $0)" }
            // Single writes race the batches; none may fall between a batch's events.
            for round in 0..<10 {
                try other.send(["op": "set", "key": "room.single", "value": round])
                try writer.send(["op": "batch", "ops": keys.map { set($0, round) }])
            }
            let events = try watcher.events(through: { $0.string("key") == keys.last && $0.integer("new") == 9 })
            var runs: [Int64: [String]] = [:]
            var order: [Int64] = []
            for event in events {
                guard let version = event.integer("version"), let key = event.string("key") else { continue }
                if order.last != version { order.append(version) }
                runs[version, default: []].append(key)
                #expect(event.string("author") == (key == "room.single" ? "bob" : "alice"), "\(event)")
            }
            #expect(order.count == Set(order).count, "each revision's events come together: \(order)")
            for (version, run) in runs where run != ["room.single"] {
                #expect(run == keys, "the batch at \(version) arrives whole, in the order of its ops")
            }
        }
    }

    @Test func aResumeReplaysABatchAsOneRunExactlyAsSent() throws {
        try withServer { server in
            let watcher = try server.connect(name: "watcher")
            _ = try watcher.call(["op": "observe", "prefix": "room."])
            let writer = try server.connect(name: "alice")
            let before = try #require(try writer.call(["op": "set", "key": "room.a", "value": 0]).integer("version"))
            _ = try watcher.nextEvent()
            _ = try writer.call(["op": "batch", "ops": [set("room.b", 1), set("other", 2), set("room.a", 3)]])
            let live = try (0..<2).map { _ in try watcher.nextEvent() }
            watcher.close()
            let resumed = try server.connect(name: "watcher")
            let reply = try resumed.call(["op": "observe", "prefix": "room.", "fromRevision": before])
            #expect(reply["resumed"] == .bool(true), "\(reply)")
            let replayed = try (0..<2).map { _ in try resumed.nextEvent() }
            #expect(replayed.map(\.text) == live.map(\.text))
            #expect(live.map { $0.string("key") } == ["room.b", "room.a"])
        }
    }

    @Test func aRepeatedRequestIdAnswersTheFirstReplyAndAppliesNothing() throws {
        try withServer { server in
            let client = try server.connect()
            let batch: [String: Any] = ["op": "batch", "requestId": "r-1", "ops": [set("a", 1), set("b", 2)]]
            let first = try client.call(batch)
            _ = try client.call(["op": "set", "key": "a", "value": 5])
            let again = try server.connect().call(batch)
            #expect(again["duplicate"] == .bool(true), "\(again)")
            #expect(again["revision"] == first["revision"] && again["results"] == first["results"], "\(again)")
            #expect(try client.call(["op": "get", "key": "a"])["value"] == .integer(5), "not applied again")
        }
    }

    @Test func withStorageABatchSurvivesARestartWhole() throws {
        let directory = NSTemporaryDirectory() + "observatory-conformance-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ServerConfiguration) -> Void = {
            $0.fsync = .always
            $0.dataDirectory = directory
        }
        let revision = try withServer(configure) { server in
            let client = try server.connect()
            _ = try client.call(["op": "set", "key": "gone", "value": 0])
            let reply = try client.call([
                "op": "batch", "requestId": "r-2", "ops": [set("a", 1), set("b", 2), ["op": "delete", "key": "gone"]],
            ])
            return try #require(reply.integer("revision"))
        }
        try withServer(configure) { server in
            let client = try server.connect()
            #expect(try client.call(["op": "ping"]).integer("revision") == revision)
            #expect(try client.call(["op": "get", "key": "a"]).integer("version") == revision)
            #expect(try client.call(["op": "get", "key": "b"]).integer("version") == revision)
            #expect(try client.call(["op": "get", "key": "gone"]).errorCode == "not_found")
            let again = try client.call(["op": "batch", "requestId": "r-2", "ops": [set("a", 9)]])
            #expect(again["duplicate"] == .bool(true) && again.integer("revision") == revision, "\(again)")
        }
    }
}
