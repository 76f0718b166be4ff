import ObservatoryEtcd
import ObservatoryWire

// A `batch` on a cluster node: one etcd transaction (`ClusterBatchPlan`), its
// events brought back by the watch in one revision and applied to the cache together.
extension ClusterState {
    func applyBatch(
        _ operations: [BatchOperation<EncodedJSON>], requestId: String?, by author: Author,
        answering slot: ReplySlot
    ) throws(WireError) -> WriteReply {
        let queue = queue(of: author.session)
        queue.async { [self] in
            // The session's next write (or its end) waits until this batch is decided.
            queue.suspend()
            performBatch(operations, requestId: requestId, by: author, answering: slot) { queue.resume() }
        }
        return .pending(slot)
    }

    /// Starts the batch's decision (`ClusterBatchDecision`, carried out by
    /// `ClusterBatchRun`), answers it once the cache applied its revision, and
    /// calls `done` once it is decided. On the session's queue; returns before etcd answers.
    private func performBatch(
        _ operations: [BatchOperation<EncodedJSON>], requestId: String?, by author: Author,
        answering slot: ReplySlot, done: @escaping @Sendable () -> Void
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
            let expiringSessionBound = expiring.sessionBound
            let keys = operations.map(\.key)
            var current: [String: RawValueEntry] = [:]
            for key in keys { current[key] = cache.get(key) }
            let revisions = restartedRevisions.withLock { known in known.filter { keys.contains($0.key) } }
            let machine = ClusterBatchDecision(
                operations: operations, requestId: requestId, current: current, revisions: revisions,
                maximumAttempts: Self.maximumAttempts
            ) { [layout] current, revisions in
                ClusterBatchPlan(
                    operations: operations, requestId: requestId, author: author, current: current,
                    currentRevisions: revisions, layout: layout, lease: leases.session, requestLease: leases.request,
                    expiryLeases: leases.expiry, now: now)
            }
            let run = ClusterBatchRun(machine, requestId: requestId, state: self) { [self] decision in
                if case .success(.batch(let committed, let results, false)) = decision.reply {
                    if isSessionBound {
                        holdSessionBoundKeys(of: operations, results, at: committed, by: author.session)
                    }
                    for (key, deadline) in expiringSessionBound { expireSessionBound(key, at: deadline) }
                }
                answerWhenApplied(decision.revision, decision.reply, slot) { [keyBudget] in
                    for key in decision.reserved { keyBudget.release(key) }
                }
                done()
            }
            run.start()
        } catch {
            answerWhenApplied(0, .failure(Self.batchFailure(error, operationCount: operations.count)), slot) {}
            done()
        }
    }

    /// The reply to a batch etcd did not apply: too large for etcd's
    /// `--max-txn-ops` (sending it again will not help), or etcd unavailable.
    static func batchFailure(_ error: EtcdError, operationCount: Int) -> WireError {
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
}
