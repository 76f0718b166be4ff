import ObservatoryEtcd
import ObservatoryWire

// A `batch` on a cluster node: one etcd transaction (`ClusterBatchPlan`), its
// events brought back by the watch in one revision and applied to the cache together.
extension ClusterState {
    func applyBatch(
        _ operations: [BatchOperation<EncodedJSON>], requestId: String?, by author: Author,
        answering slot: ReplySlot
    ) throws(WireError) -> WriteReply {
        queue(of: author.session).async { [self] in
            performBatch(operations, requestId: requestId, by: author, answering: slot)
        }
        return .pending(slot)
    }

    private func performBatch(
        _ operations: [BatchOperation<EncodedJSON>], requestId: String?, by author: Author,
        answering slot: ReplySlot
    ) {
        let isSessionBound = operations.contains {
            if case .set(_, _, _, true, _) = $0 { return true }
            return false
        }
        do throws(EtcdError) {
            let lease = isSessionBound ? try sessionKeys.lease() : 0
            let requestLease = requestId != nil ? try requestLeases.current(client) : 0
            let now = KeyExpiry.wallMilliseconds()
            var expiring = (leases: [String: Int64](), sessionBound: [String: Int64]())
            for case .set(let key, _, _, let sessionBound, let ttl?) in operations {
                let deadline = now + ttl * 1_000
                if sessionBound {
                    expiring.sessionBound[key] = deadline
                } else {
                    expiring.leases[key] = try expiryLeases.lease(for: deadline, client)
                }
            }
            let leases = (session: lease, request: requestLease, expiry: expiring.leases)
            let (revision, reply, reserved) = try decideBatch(
                operations, requestId: requestId, by: author, leases: leases, now: now)
            if case .success(.batch(let committed, let results, false)) = reply {
                if isSessionBound { holdSessionBoundKeys(of: operations, results, at: committed, by: author.session) }
                for (key, deadline) in expiring.sessionBound { expireSessionBound(key, at: deadline) }
            }
            answerWhenApplied(revision, reply, slot) { [keyBudget] in
                for key in reserved { keyBudget.release(key) }
            }
        } catch {
            slot.answer(.reply(.failure(Self.batchFailure(error, operationCount: operations.count))))
        }
    }

    /// The reply to a batch etcd did not apply: too large for etcd's
    /// `--max-txn-ops` (sending it again will not help), or etcd unavailable.
    private static func batchFailure(_ error: EtcdError, operationCount: Int) -> WireError {
        guard error.message.contains("too many operations in txn request") else { return unavailable(error) }
        return WireError(
            code: .limitExceeded,
            message:
                "a batch of \(operationCount) operations is more than etcd takes in one transaction here "
                + "(with its default --max-txn-ops of 128, a node fits 125 operations that each need a compare, "
                + "such as ifVersion, check or an update, and a requestId); "
                + "split the batch, or start etcd with a larger --max-txn-ops")
    }

    /// Notes the session-bound keys the batch put at `revision` (changed, or
    /// with `ttl`: an expiring key's restarted clock), so that they go when the session ends.
    private func holdSessionBoundKeys(
        of operations: [BatchOperation<EncodedJSON>], _ results: [BatchResult], at revision: Int64, by session: String
    ) {
        for (operation, result) in zip(operations, results) {
            if case .set(let key, _, _, true, let ttl) = operation, result.changed == true || ttl != nil {
                sessionKeys.hold(key, at: revision, by: session)
            }
        }
    }

    /// Runs the batch's transaction, planned again while a key changed under it;
    /// returns the revision the cache must reach before the reply goes out, the
    /// reply, and the keys whose room in the key budget it holds until then.
    private func decideBatch(
        _ operations: [BatchOperation<EncodedJSON>], requestId: String?, by author: Author,
        leases: (session: Int64, request: Int64, expiry: [String: Int64]), now: Int64
    ) throws(EtcdError) -> (Int64, Result<ReplyPayload, WireError>, [String]) {
        let keys = operations.map(\.key)
        var current: [String: RawValueEntry] = [:]
        for key in keys { current[key] = cache.get(key) }
        var revisions: [String: Int64] = [:]
        restartedRevisions.withLock { known in
            for key in keys { revisions[key] = known[key] }
        }
        for _ in 0..<Self.maximumAttempts {
            let plan = ClusterBatchPlan(
                operations: operations, requestId: requestId, author: author, current: current,
                currentRevisions: revisions, layout: layout, lease: leases.session, requestLease: leases.request,
                expiryLeases: leases.expiry, now: now)
            // Too wide for etcd's default limit, it would be refused before its
            // `requestId`'s compare could find a duplicate (an applied batch of
            // 128 sets, sent again, has every key to compare): look it up first.
            if !plan.fits, let requestId,
                let stored = try client.range(.key(layout.requestKey(requestId))).keyValues.first,
                let duplicate = ClusterRequestRecord.duplicateReply(stored)
            {
                return (duplicate.writtenVersion, .success(duplicate), [])
            }
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
                result = plan.outcome(of: try client.transaction(plan.transaction))
            } catch {
                for key in reserved { keyBudget.release(key) }
                throw error
            }
            guard result.succeeded else {
                for key in reserved { keyBudget.release(key) }
                if let duplicate = ClusterBatchPlan.duplicateReply(from: result, keyCount: keys.count) {
                    return (duplicate.writtenVersion, .success(duplicate), [])
                }
                (current, revisions) = ClusterBatchPlan.current(from: result, keys: keys)
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
