import Foundation
import ObservatoryServer
import ObservatoryTestSupport
import Testing

/// docs/protocol.md: a `set` in a `batch` takes `ttl` as a single `set` does;
/// against a local daemon and against a cluster node, like ``ExpiryConformanceTests``.
struct BatchExpiryConformanceTests {
    @Test func aSetWithTTLInABatchExpiresInTheNameOfItsBatch() throws {
        try withServer { server in
            let observer = try server.connect()
            _ = try observer.call(["op": "observe", "prefix": "job."])
            let writer = try server.connect()
            let hello = try writer.call(["op": "hello", "name": "carol"])
            let sent = ContinuousClock.now
            let batch = try writer.call(
                fields: #""op":"batch","ops":[{"op":"set","key":"job.a","value":1,"ttl":1},"#
                    + #"{"op":"set","key":"job.b","value":2}]"#)
            #expect(batch.ok == true, "\(batch)")
            let first = try observer.nextEvent()
            let second = try observer.nextEvent()
            #expect(first["ttl"] == .integer(1), "the expiring key's update carries ttl: \(first)")
            #expect(second["ttl"] == nil, "the lasting key's does not: \(second)")
            let delete = try observer.nextEvent(timeout: .seconds(5))
            #expect(ContinuousClock.now - sent >= .seconds(1), "deleted before its time")
            #expect(delete.event == "delete" && delete.string("key") == "job.a", "\(delete)")
            #expect(delete.string("reason") == "expired", "\(delete)")
            #expect(delete.string("author") == "carol")
            #expect(delete["session"] == hello["session"])
            #expect(try writer.call(["op": "get", "key": "job.b"]).ok == true, "the lasting key stays")
        }
    }

    @Test func anEqualValueWithTTLInABatchRestartsTheClockWithoutARevision() throws {
        try withServer { server in
            let client = try server.connect()
            let set = try client.call(["op": "set", "key": "claim", "value": "x", "ttl": 5])
            let version = try #require(set.integer("version"))
            let batch = try client.call(
                fields: #""op":"batch","ops":[{"op":"set","key":"claim","value":"x","ttl":500}]"#)
            // No revision of its own: the reply names the current one (a cluster node may
            // have skipped numbers for the restart in etcd, never taken one for a change).
            let current = try #require(try client.call(["op": "ping"]).integer("revision"))
            let revision = try #require(batch.integer("revision"))
            #expect((version...current).contains(revision), "the current revision: \(batch), ping \(current)")
            guard case .array(let results)? = batch["results"], let result = results.first else {
                Issue.record("no results: \(batch)")
                return
            }
            #expect(result["changed"] == .bool(false), "\(batch)")
            #expect(result["version"] == .integer(version))
            let get = try client.call(["op": "get", "key": "claim"])
            #expect((get.integer("ttl") ?? 0) > 100, "the clock restarted at 500 s: \(get)")
            #expect(get.integer("version") == version)
        }
    }

    @Test func withStorageABatchsExpiriesAndRestartedClocksSurviveARestart() throws {
        let directory = NSTemporaryDirectory() + "observatory-conformance-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure: (inout ServerConfiguration) -> Void = {
            $0.fsync = .always
            $0.dataDirectory = directory
        }
        try withServer(configure) { server in
            let client = try server.connect()
            _ = try client.call(["op": "set", "key": "kept", "value": "x", "ttl": 5])
            // One change and one restarted clock in one batch record.
            let batch = try client.call(
                fields: #""op":"batch","ops":[{"op":"set","key":"kept","value":"x","ttl":900},"#
                    + #"{"op":"set","key":"new","value":1,"ttl":800}]"#)
            #expect(batch.ok == true, "\(batch)")
        }
        try withServer(configure) { server in
            let client = try server.connect()
            let kept = try client.call(["op": "get", "key": "kept"])
            #expect((kept.integer("ttl") ?? 0) > 800, "the restarted clock is kept: \(kept)")
            let new = try client.call(["op": "get", "key": "new"])
            #expect((new.integer("ttl") ?? 0) > 700, "the batch's expiry is kept: \(new)")
        }
    }
}
