import Foundation
import ObservatoryServer
import Testing

/// PROTOCOL.md, "Epoch" and "Durability": `hello` and `ping` carry `revision` and
/// `epoch`, every `observe` reply carries `revision`, and with storage on a
/// restart keeps the values, the revisions and the epoch.
@Suite struct EpochConformanceTests {
    @Test func helloAndPingCarryTheLastRevisionAndTheEpoch() throws {
        try withServer { server in
            let client = try server.connect()
            let hello = try client.call(["op": "hello", "name": "alice"])
            #expect(hello.integer("revision") == 0, "\(hello)")
            let epoch = try #require(hello.string("epoch"), "epoch must be a string: \(hello)")
            #expect(!epoch.isEmpty)
            _ = try client.call(["op": "set", "key": "a", "value": 1])
            _ = try client.call(["op": "set", "key": "b", "value": 2])
            let ping = try client.call(["op": "ping"])
            #expect(ping.ok == true, "\(ping)")
            #expect(ping.integer("revision") == 2, "\(ping)")
            #expect(ping.string("epoch") == epoch, "\(ping)")
            let other = try server.connect()
            #expect(try other.call(["op": "ping"]).string("epoch") == epoch, "one server, one epoch")
        }
    }

    @Test func everyObserveReplyCarriesTheRevision() throws {
        try withServer { server in
            let client = try server.connect()
            for index in 1...3 {
                _ = try client.call(["op": "set", "key": "k\(index)", "value": index])
            }
            #expect(try client.call(["op": "observe", "key": "k1"]).integer("revision") == 3)
            #expect(try client.call(["op": "observe", "key": "missing"]).integer("revision") == 3)
            #expect(try client.call(["op": "observe", "prefix": "k"]).integer("revision") == 3)
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
