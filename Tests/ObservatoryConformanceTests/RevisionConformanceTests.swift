import Foundation
import Testing

/// docs/protocol.md, "versions": one global revision counter, a key's version is the
/// revision of its last change, equal values change nothing, `ifVersion`.
@Suite struct RevisionConformanceTests {
    @Test func everyChangeToAnyKeyTakesTheNextGlobalRevision() throws {
        try withServer { server in
            let client = try server.connect()
            var previous = try #require(try client.call(["op": "set", "key": "a", "value": 1]).integer("version"))
            let steps: [[String: Any]] = [
                ["op": "set", "key": "b", "value": 1],
                ["op": "set", "key": "a", "value": 2],
                ["op": "delete", "key": "b"],
                ["op": "set", "key": "c", "value": [1]],
                ["op": "set", "key": "b", "value": "back"],
            ]
            for request in steps {
                let reply = try client.call(request)
                #expect(server.revisions.isNext(reply.integer("version"), after: previous), "\(request) -> \(reply)")
                previous = reply.integer("version") ?? previous
            }
        }
    }

    @Test func versionIsTheRevisionOfTheKeysLastChange() throws {
        try withServer { server in
            let client = try server.connect()
            let a = try client.call(["op": "set", "key": "a", "value": 1]).integer("version")
            _ = try client.call(["op": "set", "key": "b", "value": 1])
            _ = try client.call(["op": "set", "key": "b", "value": 2])
            let get = try client.call(["op": "get", "key": "a"])
            #expect(get.integer("version") == a, "other keys' changes must not move a's version: \(get)")
            let list = try client.call(["op": "list"])
            let listedA = list["keys"]?.array?.first(where: { $0["key"] == .string("a") })
            #expect(listedA?["version"]?.integer == a)
        }
    }

    @Test func settingAnEqualValueRepliesChangedFalseAndTakesNoRevision() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "key": "same"])
            let client = try server.connect()
            let created = try client.call(fields: #""op":"set","key":"same","value":{"a":[1,2],"b":"x"}"#)
            let version = try #require(created.integer("version"))
            let again = try client.call(fields: #""op":"set","key":"same","value":{"a":[1,2],"b":"x"}"#)
            #expect(again.ok == true, "\(again)")
            #expect(again["changed"] == .bool(false), "\(again)")
            #expect(again.integer("version") == version, "no new version for an equal value: \(again)")
            let next = try client.call(["op": "set", "key": "other", "value": 1])
            #expect(
                server.revisions.isNext(next.integer("version"), after: version),
                "the equal set must not take a revision: \(next)")
            _ = try observer.nextEvent()
            _ = try client.call(["op": "set", "key": "same", "value": "sentinel"])
            let sentinel = try observer.nextEvent()
            #expect(sentinel["new"] == .string("sentinel"), "an equal value must send no event: \(sentinel)")
        }
    }

    @Test func anObjectWithTheSameMembersInAnotherOrderIsAnEqualValue() throws {
        try withServer { server in
            let client = try server.connect()
            _ = try client.call(fields: #""op":"set","key":"o","value":{"a":1,"b":2}"#)
            let again = try client.call(fields: #""op":"set","key":"o","value":{"b":2,"a":1}"#)
            #expect(again["changed"] == .bool(false), "JSON objects are unordered: \(again)")
        }
    }

    @Test func ifVersionZeroCreatesOnlyWhenTheKeyDoesNotExist() throws {
        try withServer { server in
            let client = try server.connect()
            let create = try client.call(["op": "set", "key": "lock", "value": "mine", "ifVersion": 0])
            #expect(create.ok == true, "\(create)")
            let version = try #require(create.integer("version"))
            let second = try client.call(["op": "set", "key": "lock", "value": "yours", "ifVersion": 0])
            #expect(second.errorCode == "conflict", "\(second)")
            #expect(second["error"]?["version"] == .integer(version), "conflict carries the current version: \(second)")
            let get = try client.call(["op": "get", "key": "lock"])
            #expect(get["value"] == .string("mine"))
        }
    }

    @Test func ifVersionMatchingTheCurrentVersionSucceedsAndAStaleOneConflicts() throws {
        try withServer { server in
            let client = try server.connect()
            let v1 = try #require(try client.call(["op": "set", "key": "cas", "value": 1]).integer("version"))
            let v2reply = try client.call(["op": "set", "key": "cas", "value": 2, "ifVersion": v1])
            #expect(v2reply.ok == true, "\(v2reply)")
            let v2 = try #require(v2reply.integer("version"))
            let stale = try client.call(["op": "set", "key": "cas", "value": 3, "ifVersion": v1])
            #expect(stale.errorCode == "conflict", "\(stale)")
            #expect(stale["error"]?["version"] == .integer(v2), "\(stale)")
            #expect(stale.id == .integer(3))
            let get = try client.call(["op": "get", "key": "cas"])
            #expect(get["value"] == .integer(2))
            #expect(get.integer("version") == v2)
        }
    }

    @Test func ifVersionOnAMissingKeyConflictsWithVersionZero() throws {
        try withServer { server in
            let client = try server.connect()
            let set = try client.call(["op": "set", "key": "missing", "value": 1, "ifVersion": 5])
            #expect(set.errorCode == "conflict", "\(set)")
            #expect(set["error"]?["version"] == .integer(0), "\(set)")
            let delete = try client.call(["op": "delete", "key": "missing", "ifVersion": 5])
            #expect(delete.errorCode == "conflict", "delete with ifVersion of a missing key is a conflict: \(delete)")
            #expect(delete["error"]?["version"] == .integer(0), "\(delete)")
        }
    }

    @Test func deleteWithIfVersionZeroOfAMissingKeyConflictsWithVersionZero() throws {
        try withServer { server in
            let client = try server.connect()
            // "a delete with ifVersion fails with conflict instead [of not_found]"
            let delete = try client.call(["op": "delete", "key": "missing", "ifVersion": 0])
            #expect(delete.errorCode == "conflict", "\(delete)")
            #expect(delete["error"]?["version"] == .integer(0), "\(delete)")
        }
    }

    @Test func deleteWithIfVersionSucceedsOnlyAtTheCurrentVersion() throws {
        try withServer { server in
            let client = try server.connect()
            let v1 = try #require(try client.call(["op": "set", "key": "d", "value": 1]).integer("version"))
            let v2 = try #require(try client.call(["op": "set", "key": "d", "value": 2]).integer("version"))
            let stale = try client.call(["op": "delete", "key": "d", "ifVersion": v1])
            #expect(stale.errorCode == "conflict", "\(stale)")
            #expect(stale["error"]?["version"] == .integer(v2), "\(stale)")
            let current = try client.call(["op": "delete", "key": "d", "ifVersion": v2])
            #expect(current.ok == true, "\(current)")
            #expect(server.revisions.isNext(current.integer("version"), after: v2), "\(current)")
        }
    }

    @Test func aKeyRecreatedAfterDeleteGetsAHigherVersion() throws {
        try withServer { server in
            let client = try server.connect()
            let created = try #require(try client.call(["op": "set", "key": "r", "value": 1]).integer("version"))
            let deleted = try #require(try client.call(["op": "delete", "key": "r"]).integer("version"))
            let recreated = try client.call(["op": "set", "key": "r", "value": 1, "ifVersion": 0])
            #expect(recreated.ok == true, "\(recreated)")
            #expect(deleted > created)
            #expect((recreated.integer("version") ?? 0) > deleted)
        }
    }
}
