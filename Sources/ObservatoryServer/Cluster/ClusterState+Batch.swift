import ObservatoryEtcd
import ObservatoryWire

// A `batch` on a cluster node: one etcd transaction (`ClusterBatchPlan`), its
// events brought back by the watch in one revision and applied to the cache together.
extension ClusterState {
    func applyBatch(_ operations: [BatchOperation], requestId: String?, by author: Author) throws(WireError)
        -> WriteReply
    {
        let pending = PendingReply()
        queue(of: author.session).async { [self] in
            performBatch(operations, requestId: requestId, by: author, answering: pending)
        }
        return .pending(pending)
    }

    private func performBatch(
        _ operations: [BatchOperation], requestId: String?, by author: Author, answering pending: PendingReply
    ) {
        let isSessionBound = operations.contains {
            if case .set(_, _, _, true, _) = $0 { return true }
            return false
        }
        do throws(EtcdError) {
            let lease = isSessionBound ? try sessionLease(of: author.session) : 0
            let requestLease = requestId != nil ? try requestLeases.current(client) : 0
            let (revision, reply, reserved) = try decideBatch(
                operations, requestId: requestId, by: author, lease: lease, requestLease: requestLease)
            answerWhenApplied(revision, reply, pending) { [keyBudget] in
                for key in reserved { keyBudget.release(key) }
            }
        } catch {
            pending.fulfill(.failure(Self.unavailable(error)))
        }
    }

    /// Runs the batch's transaction, planned again while a key changed under it;
    /// returns the revision the cache must reach before the reply goes out, the
    /// reply, and the keys whose room in the key budget it holds until then.
    private func decideBatch(
        _ operations: [BatchOperation], requestId: String?, by author: Author, lease: Int64, requestLease: Int64
    ) throws(EtcdError) -> (Int64, Result<ReplyPayload, WireError>, [String]) {
        let keys = operations.map(\.key)
        var current: [String: RawValueEntry] = [:]
        for key in keys { current[key] = cache.get(key) }
        for _ in 0..<Self.maximumAttempts {
            let plan = ClusterBatchPlan(
                operations: operations, requestId: requestId, author: author, current: current, layout: layout,
                lease: lease, requestLease: requestLease)
            var reserved: [String] = []
            for key in plan.creates {
                let hasRoom = try keyBudget.reserve(key, in: cache) { () throws(EtcdError) in
                    let range = try client.range(layout.values, limit: 1)
                    return (Int(range.count), range.header.revision)
                }
                guard hasRoom else {
                    for key in reserved { keyBudget.release(key) }
                    let index = operations.firstIndex { $0.key == key } ?? 0
                    return (0, .failure(keyBudget.exceeded.at(index: index)), [])
                }
                reserved.append(key)
            }
            let result: EtcdTransactionResult
            do throws(EtcdError) {
                result = try client.transaction(plan.transaction)
            } catch {
                for key in reserved { keyBudget.release(key) }
                throw error
            }
            guard result.succeeded else {
                for key in reserved { keyBudget.release(key) }
                if let duplicate = ClusterBatchPlan.duplicateReply(from: result, keyCount: keys.count) {
                    return (duplicate.writtenVersion, .success(duplicate), [])
                }
                current = ClusterBatchPlan.current(from: result, keys: keys)
                continue
            }
            let committed = result.header.revision
            for key in reserved { keyBudget.committed(key, at: committed) }
            // Also a batch that writes nothing waits: what it read may be ahead of the cache.
            let seen = max(current.values.map(\.version).max() ?? 0, cache.revision)
            let revision = plan.writes ? committed : seen
            return (revision, plan.reply(committedAt: committed, current: seen), reserved)
        }
        return (
            0,
            .failure(
                WireError(code: .unavailable, message: "the batch's keys changed too often to apply it; try again")),
            []
        )
    }
}
