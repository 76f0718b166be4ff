import Testing

/// docs/protocol.md, "Batches": large batches. A cluster node writes each
/// changing operation as two etcd operations and compares each key, so past 64
/// a flat etcd transaction is over etcd's default `--max-txn-ops` (128); 125
/// operations with a `requestId` is the most a node fits with a compare each by
/// nesting it, and a full batch of 128 creates leaves out the compares of its
/// last few (docs/cluster.md, "Batches").
@Suite struct FullBatchConformanceTests {
    private static let size = 125
    /// The most operations PROTOCOL.md allows in one batch.
    private static let fullSize = 128

    private func sets(_ count: Int, prefix: String) -> [[String: Any]] {
        (0..<count).map { ["op": "set", "key": "\(prefix).\($0)", "value": $0] }
    }

    @Test func aBatchOf125NewKeysWithARequestIdChangesEveryKeyAtOneRevision() throws {
        try withServer { server in
            let client = try server.connect(name: "alice")
            let batch: [String: Any] = ["op": "batch", "requestId": "full-1", "ops": sets(Self.size, prefix: "full")]
            let reply = try client.call(batch)
            #expect(reply.ok == true, "\(reply)")
            let revision = try #require(reply.integer("revision"), "\(reply)")
            let results = try #require(reply["results"]?.array, "\(reply)")
            #expect(results.count == Self.size)
            #expect(results.allSatisfy { $0["version"] == .integer(revision) }, "\(reply)")
            for index in 0..<Self.size {
                let get = try client.call(["op": "get", "key": "full.\(index)"])
                #expect(get.integer("version") == revision, "full.\(index): \(get)")
            }
            let again = try client.call(batch)
            #expect(again.ok == true && again.integer("revision") == revision, "the same reply again: \(again)")
        }
    }

    @Test func aBatchOf128NewKeysWithARequestIdChangesEveryKeyAtOneRevision() throws {
        try withServer { server in
            let client = try server.connect(name: "alice")
            let batch: [String: Any] = [
                "op": "batch", "requestId": "full-3", "ops": sets(Self.fullSize, prefix: "most"),
            ]
            let reply = try client.call(batch)
            #expect(reply.ok == true, "\(reply)")
            let revision = try #require(reply.integer("revision"), "\(reply)")
            let results = try #require(reply["results"]?.array, "\(reply)")
            #expect(results.count == Self.fullSize)
            #expect(results.allSatisfy { $0["version"] == .integer(revision) }, "\(reply)")
            for index in 0..<Self.fullSize {
                let get = try client.call(["op": "get", "key": "most.\(index)"])
                #expect(get.integer("version") == revision, "most.\(index): \(get)")
            }
            let again = try client.call(batch)
            #expect(again.ok == true && again.integer("revision") == revision, "the same reply again: \(again)")
        }
    }

    @Test func aBatchWhoseLastOf125OperationsFailsNamesItsIndexAndWritesNothing() throws {
        try withServer { server in
            let client = try server.connect(name: "alice")
            let version = try #require(try client.call(["op": "set", "key": "last", "value": 0]).integer("version"))
            let last: [String: Any] = ["op": "set", "key": "last", "value": 1, "ifVersion": version + 1]
            let reply = try client.call([
                "op": "batch", "requestId": "full-2", "ops": sets(Self.size - 1, prefix: "none") + [last],
            ])
            #expect(reply.errorCode == "conflict", "\(reply)")
            #expect(reply["error"]?["index"] == .integer(Int64(Self.size - 1)), "\(reply)")
            #expect(reply["error"]?["version"] == .integer(version), "\(reply)")
            for index in 0..<(Self.size - 1) {
                #expect(
                    try client.call(["op": "get", "key": "none.\(index)"]).errorCode == "not_found", "none.\(index)")
            }
            #expect(try client.call(["op": "get", "key": "last"]).integer("version") == version)
            #expect(try client.call(["op": "ping"]).integer("revision") == version, "no revision was taken")
        }
    }
}
