import Testing

/// What a cluster node answers to `batch` in this version: a refusal, with
/// nothing applied (`BatchConformanceTests` checks batches on a single daemon).
@Suite(.enabled(if: runsAgainstClusterNodes, "only against cluster nodes"))
struct ClusterBatchRefusalConformanceTests {
    @Test func aClusterNodeRefusesABatchWithoutApplyingAnything() throws {
        try withServer { server in
            let client = try server.connect()
            let reply = try client.call(["op": "batch", "ops": [["op": "set", "key": "a", "value": 1]]])
            #expect(reply.errorCode == "unknown_op", "\(reply)")
            #expect(try client.call(["op": "get", "key": "a"]).errorCode == "not_found")
        }
    }
}
