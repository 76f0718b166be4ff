import Foundation
import ObservatoryServer
import Testing

/// docs/protocol.md, "Epoch" and "Durability": `hello` and `ping` carry `revision` and
/// `epoch`, every `observe` reply carries `revision`, and with storage on a
/// restart keeps the values, the revisions and the epoch.
@Suite struct EpochConformanceTests {
    @Test func helloAndPingCarryTheLastRevisionAndTheEpoch() throws {
        try withServer { server in
            let client = try server.connect()
            let hello = try client.call(["op": "hello", "name": "alice"])
            #expect(server.revisions.isStart(hello.integer("revision")), "\(hello)")
            let epoch = try #require(hello.string("epoch"), "epoch must be a string: \(hello)")
            #expect(!epoch.isEmpty)
            let a = try #require(try client.call(["op": "set", "key": "a", "value": 1]).integer("version"))
            #expect(server.revisions.isNext(a, after: hello.integer("revision") ?? 0))
            let b = try #require(try client.call(["op": "set", "key": "b", "value": 2]).integer("version"))
            #expect(server.revisions.isNext(b, after: a))
            let ping = try client.call(["op": "ping"])
            #expect(ping.ok == true, "\(ping)")
            #expect(server.revisions.isLatest(ping.integer("revision"), b), "\(ping)")
            #expect(ping.string("epoch") == epoch, "\(ping)")
            let other = try server.connect()
            #expect(try other.call(["op": "ping"]).string("epoch") == epoch, "one server, one epoch")
        }
    }

    @Test func everyObserveReplyCarriesTheRevision() throws {
        try withServer { server in
            let client = try server.connect()
            var last = try #require(try client.call(["op": "ping"]).integer("revision"))
            #expect(server.revisions.isStart(last))
            for index in 1...3 {
                let version = try client.call(["op": "set", "key": "k\(index)", "value": index]).integer("version")
                #expect(server.revisions.isNext(version, after: last))
                last = version ?? last
            }
            let observes: [[String: Any]] = [
                ["op": "observe", "key": "k1"], ["op": "observe", "key": "missing"], ["op": "observe", "prefix": "k"],
            ]
            for observe in observes {
                let reply = try client.call(observe)
                #expect(server.revisions.isLatest(reply.integer("revision"), last), "\(observe): \(reply)")
            }
        }
    }

    @Test func withoutStorageEveryStartBeginsANewEpoch() throws {
        let first = try withServer { server in try server.connect().call(["op": "ping"]).string("epoch") }
        let second = try withServer { server in try server.connect().call(["op": "ping"]).string("epoch") }
        #expect(first != nil && second != nil && first != second)
    }

    @Test func withStorageARestartKeepsValuesRevisionsAuthorsAndTheEpoch() throws {
        let directory = NSTemporaryDirectory() + "observatory-conformance-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ServerConfiguration) -> Void = {
            $0.fsync = .always
            $0.dataDirectory = directory
        }
        let (epoch, session) = try withServer(configure) { server in
            let client = try server.connect()
            let hello = try client.call(["op": "hello", "name": "alice"])
            _ = try client.call(["op": "set", "key": "sky.color", "value": "blue"])
            _ = try client.call(["op": "set", "key": "sky.color", "value": ["r": 1]])
            _ = try client.call(["op": "set", "key": "gone", "value": true])
            _ = try client.call(["op": "delete", "key": "gone"])
            return (hello.string("epoch"), hello.string("session"))
        }
        try withServer(configure) { server in
            let client = try server.connect()
            let hello = try client.call(["op": "hello", "name": "bob"])
            #expect(hello.string("epoch") == epoch)
            #expect(hello.integer("revision") == 4)
            #expect(hello.string("session") != session, "session ids are not reused within an epoch")
            let entry = try client.call(["op": "get", "key": "sky.color"])
            #expect(entry["value"] == .object(["r": .integer(1)]), "\(entry)")
            #expect(entry.integer("version") == 2)
            #expect(entry.string("author") == "alice")
            #expect(entry.string("session") == session)
            #expect(try client.call(["op": "get", "key": "gone"]).errorCode == "not_found")
            #expect(try client.call(["op": "set", "key": "next", "value": 1]).integer("version") == 5)
        }
    }
}
