import Testing

/// The `bad_request` rules of `batch` (docs/protocol.md, "Batches"): checked
/// before a batch reaches the state, so they hold on a single daemon and on a
/// cluster node alike.
@Suite struct BatchRequestConformanceTests {
    @Test func malformedBatchesAreBadRequests() throws {
        try withServer { server in
            let client = try server.connect()
            let repeated = try client.call([
                "op": "batch", "ops": [["op": "set", "key": "a", "value": 1], ["op": "delete", "key": "a"]],
            ])
            #expect(repeated.errorCode == "bad_request" && repeated["error"]?["index"] == .integer(1), "\(repeated)")
            #expect(try client.call(["op": "batch", "ops": [Any]()]).errorCode == "bad_request")
            let tooMany = (0...128).map { ["op": "set", "key": "k\($0)", "value": $0] }
            #expect(try client.call(["op": "batch", "ops": tooMany]).errorCode == "bad_request")
            #expect(try client.call(["op": "batch", "ops": [["op": "check", "key": "a"]]]).errorCode == "bad_request")
            #expect(try client.call(["op": "batch", "ops": [["op": "get", "key": "a"]]]).errorCode == "bad_request")
            let ttl = try client.call(["op": "batch", "ops": [["op": "set", "key": "a", "value": 1, "ttl": 0]]])
            #expect(ttl.errorCode == "bad_request")
            #expect(try client.call(["op": "get", "key": "a"]).errorCode == "not_found")
        }
    }
}
