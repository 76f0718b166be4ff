import Foundation
import ObservatoryServer
import Testing

/// docs/protocol.md, "Ops": every op's success reply with its exact fields and types.
@Suite struct OperationConformanceTests {
    @Test func defaultsAreThoseOfTheProtocol() {
        let configuration = ServerConfiguration()
        #expect(configuration.port == 7_070)
        #expect(configuration.limits.maxFrameBytes == 1_048_576)
        #expect(configuration.limits.maxValueBytes == 524_288)
        #expect(configuration.limits.maxQueuedBytes == 8_388_608)
        #expect(configuration.auth.tokens.isEmpty, "no auth by default")
    }

    @Test func helloRepliesServerProtocolSessionAndAuthor() throws {
        try withServer { server in
            let client = try server.connect()
            let reply = try client.call(["op": "hello", "name": "alice", "protocol": 1])
            #expect(reply.ok == true, "\(reply)")
            #expect(reply.id == .integer(1))
            #expect(reply.string("server")?.isEmpty == false, "server must be a string: \(reply)")
            #expect(reply["protocol"] == .integer(1), "\(reply)")
            #expect(reply.string("session")?.isEmpty == false, "session must be a non-empty string: \(reply)")
            #expect(reply.string("author") == "alice", "\(reply)")
        }
    }

    @Test func helloWithoutNameMakesTheAuthorAnonymousAndProtocolDefaultsToOne() throws {
        try withServer { server in
            let client = try server.connect()
            let reply = try client.call(["op": "hello"])
            #expect(reply.ok == true, "\(reply)")
            #expect(reply.string("author") == "anonymous", "\(reply)")
            #expect(reply["protocol"] == .integer(1), "\(reply)")
            #expect(reply.string("session") != nil, "\(reply)")
        }
    }

    @Test func everyConnectionGetsItsOwnSession() throws {
        try withServer { server in
            var sessions = Set<String>()
            for _ in 0..<5 {
                let client = try server.connect()
                sessions.insert(try client.call(["op": "hello", "name": "same"]).string("session") ?? "")
            }
            #expect(sessions.count == 5)
            #expect(!sessions.contains(""))
        }
    }

    @Test func getRepliesKeyValueVersionAuthorAndSession() throws {
        try withServer { server in
            let writer = try server.connect()
            let hello = try writer.call(["op": "hello", "name": "writer"])
            let set = try writer.call(fields: #""op":"set","key":"sky.color","value":"blue""#)
            let reader = try server.connect()
            let reply = try reader.call(["op": "get", "key": "sky.color"])
            #expect(reply.ok == true, "\(reply)")
            #expect(reply.string("key") == "sky.color")
            #expect(reply["value"] == .string("blue"))
            #expect(reply.integer("version") != nil, "version must be an integer: \(reply)")
            #expect(reply.integer("version") == set.integer("version"))
            #expect(reply.string("author") == "writer")
            #expect(reply.string("session") == hello.string("session"), "\(reply) vs \(hello)")
        }
    }

    @Test func setRepliesKeyVersionAndChanged() throws {
        try withServer { server in
            let client = try server.connect()
            let reply = try client.call(["op": "set", "key": "a.b", "value": ["x": 1]])
            #expect(reply.ok == true, "\(reply)")
            #expect(reply.string("key") == "a.b")
            #expect((reply.integer("version") ?? 0) > 0, "\(reply)")
            #expect(reply["changed"] == .bool(true), "changed must be the boolean true: \(reply)")
            let change = try client.call(["op": "set", "key": "a.b", "value": ["x": 2]])
            #expect(change["changed"] == .bool(true), "\(change)")
            #expect((change.integer("version") ?? 0) > (reply.integer("version") ?? 0))
        }
    }

    @Test func deleteRepliesKeyAndVersionAndRemovesTheKey() throws {
        try withServer { server in
            let client = try server.connect()
            let set = try client.call(["op": "set", "key": "gone", "value": 1])
            let delete = try client.call(["op": "delete", "key": "gone"])
            #expect(delete.ok == true, "\(delete)")
            #expect(delete.string("key") == "gone")
            #expect(server.revisions.isNext(delete.integer("version"), after: set.integer("version") ?? 0), "\(delete)")
            let get = try client.call(["op": "get", "key": "gone"])
            #expect(get.errorCode == "not_found", "\(get)")
        }
    }

    @Test func observeRepliesWithSnapshotEntriesOfKeyValueVersionAuthorSession() throws {
        try withServer { server in
            let writer = try server.connect()
            let hello = try writer.call(["op": "hello", "name": "w"])
            let set = try writer.call(["op": "set", "key": "room.temp", "value": 21.5])
            let observer = try server.connect()
            let reply = try observer.call(["op": "observe", "key": "room.temp"])
            #expect(reply.ok == true, "\(reply)")
            let values = try #require(reply["values"]?.array, "values must be an array: \(reply)")
            #expect(values.count == 1)
            let entry = try #require(values.first)
            #expect(entry["key"] == .string("room.temp"))
            #expect(entry["value"] == .double(21.5))
            #expect(entry["version"] == set["version"])
            #expect(entry["author"] == .string("w"))
            #expect(entry["session"] == hello["session"])
            #expect(entry.object?.count == 5, "entry has exactly key, value, version, author, session: \(entry)")
        }
    }

    @Test func observingAMissingKeyRepliesWithAnEmptySnapshot() throws {
        try withServer { server in
            let client = try server.connect()
            let reply = try client.call(["op": "observe", "key": "not.there"])
            #expect(reply.ok == true, "\(reply)")
            #expect(reply["values"] == .array([]), "\(reply)")
        }
    }

    @Test func observingAPrefixSnapshotsExactlyTheKeysUnderIt() throws {
        try withServer { server in
            let client = try server.connect()
            for key in ["kitchen.light", "kitchen.oven", "kitchenette", "garden.light"] {
                _ = try client.call(["op": "set", "key": key, "value": key])
            }
            let reply = try client.call(["op": "observe", "prefix": "kitchen."])
            let keys = (reply["values"]?.array ?? []).compactMap { $0["key"]?.string }
            #expect(keys.sorted() == ["kitchen.light", "kitchen.oven"], "\(reply)")
        }
    }

    @Test func unobserveRepliesOKWithItsID() throws {
        try withServer { server in
            let client = try server.connect()
            _ = try client.call(["op": "observe", "key": "k"])
            let reply = try client.call(["op": "unobserve", "key": "k"])
            #expect(reply.ok == true, "\(reply)")
            #expect(reply.id == .integer(2))
            let prefix = try client.call(["op": "unobserve", "prefix": "p."])
            #expect(prefix.ok == true, "unobserving something not observed is harmless: \(prefix)")
        }
    }

    @Test func listRepliesKeysWithVersionsFilteredByPrefix() throws {
        try withServer { server in
            let client = try server.connect()
            var versions: [String: Int64] = [:]
            for key in ["l.a", "l.b", "m.c"] {
                versions[key] = try client.call(["op": "set", "key": key, "value": 0]).integer("version")
            }
            _ = try client.call(["op": "set", "key": "l.deleted", "value": 0])
            _ = try client.call(["op": "delete", "key": "l.deleted"])
            let all = try client.call(["op": "list"])
            #expect(all.ok == true, "\(all)")
            let entries = try #require(all["keys"]?.array, "keys must be an array: \(all)")
            var listed: [String: Int64] = [:]
            for entry in entries {
                #expect(entry.object?.count == 2, "entry has exactly key and version: \(entry)")
                if let key = entry["key"]?.string { listed[key] = entry["version"]?.integer }
            }
            #expect(listed == versions)
            let filtered = try client.call(["op": "list", "prefix": "l."])
            let keys = (filtered["keys"]?.array ?? []).compactMap { $0["key"]?.string }
            #expect(keys.sorted() == ["l.a", "l.b"], "\(filtered)")
            let none = try client.call(["op": "list", "prefix": "zzz"])
            #expect(none["keys"] == .array([]), "\(none)")
        }
    }

    @Test func pingRepliesOK() throws {
        try withServer { server in
            let client = try server.connect()
            let reply = try client.call(["op": "ping"])
            #expect(reply.ok == true)
            #expect(reply.id == .integer(1))
            #expect(!reply.isEvent)
        }
    }
}
