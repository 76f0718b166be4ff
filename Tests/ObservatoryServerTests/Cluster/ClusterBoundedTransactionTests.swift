import ObservatoryEtcd
import ObservatoryTestSupport
import Testing

@testable import ObservatoryServer

/// A batch's transaction wider than etcd's `--max-txn-ops` (128) is sent
/// nested, still as one transaction: all or nothing, at one revision, its reads
/// in order; etcd adds up the widths of the levels along every path inward.
@Suite(.requiresEtcd)
struct ClusterBoundedTransactionTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// What etcd checks against `--max-txn-ops`: the widest path from `transaction` inward.
    private func pathWidth(_ transaction: EtcdTransaction) -> Int {
        let nested = (transaction.success + transaction.failure).map { operation -> Int in
            if case .transaction(let inner) = operation { return pathWidth(inner) }
            return 0
        }
        return max(transaction.compares.count, transaction.success.count, transaction.failure.count)
            + (nested.max() ?? 0)
    }

    /// The shape of a batch of `sets` new keys with a `requestId`: a compare and
    /// a read for each key and the request's record, two puts a key and one for the record.
    private func batch(sets: Int) -> ClusterBoundedTransaction {
        let keys = (0..<sets).map { "t/k\($0)" }
        return ClusterBoundedTransaction(
            compares: (keys + ["t/request"]).map { .absent(bytes($0)) },
            success: keys.flatMap {
                [.put(key: bytes($0), value: bytes("v")), .put(key: bytes("t/m\($0)"), value: [])]
            }
                + [.put(key: bytes("t/request"), value: bytes("r"))],
            failure: (keys + ["t/request"]).map { .range(.key($0)) })
    }

    @Test func batchesUpTo125SetsWithARequestIdStayWithinEtcdsDefaultLimit() {
        for sets in 1...125 {
            #expect(pathWidth(batch(sets: sets).transaction) <= 128, "\(sets) sets")
        }
        #expect(batch(sets: 63).transaction.success.count == 127, "a flat transaction while it fits")
        let tooMany = batch(sets: 126).transaction
        #expect(tooMany.success.count == 253, "sent flat when it cannot fit: etcd decides")
    }

    @Test func aNestedTransactionCommitsEveryOperationAtOneRevision() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let plan = batch(sets: 125)
            let result = plan.outcome(of: try client.transaction(plan.transaction))
            #expect(result.succeeded)
            let written = try client.range(.prefix("t/"))
            #expect(written.count == 251)
            #expect(written.keyValues.allSatisfy { $0.modRevision == result.header.revision })
        }
    }

    @Test func aFailingCompareWritesNothingAndReadsEveryKeyInOrder() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            for (index, taken) in [(0, "t/k0"), (124, "t/k124"), (125, "t/request")] {
                let before = try client.put(bytes(taken), bytes("taken")).header.revision
                let plan = batch(sets: 125)
                let result = plan.outcome(of: try client.transaction(plan.transaction))
                #expect(!result.succeeded, "\(taken)")
                #expect(result.responses.count == 126)
                let found = result.responses.enumerated().compactMap { index, response -> Int? in
                    guard case .range(let range) = response, !range.keyValues.isEmpty else { return nil }
                    return index
                }
                #expect(found == [index], "\(taken)")
                let after = try client.range(.prefix("t/"))
                #expect(after.count == 1 && after.header.revision == before, "nothing written with \(taken) taken")
                _ = try client.deleteRange(.key(taken))
            }
        }
    }
}
