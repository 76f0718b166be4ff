import Observatory
import ObservatoryEtcd
import ObservatoryWire

/// One `batch` of a cluster node under way: carries out the actions of its
/// `ClusterBatchDecision` (the I/O shell of that machine) and feeds it what
/// comes back, with no thread waiting in between.
///
/// The transaction (and the read of a `requestId`'s record, for a batch too
/// wide for etcd's default limit) goes through the etcd client's calls with a
/// completion, whose answers come on the client's thread of exchanges; the
/// counts of the key budget near `limits.maxKeys` run on the budget's serial
/// queue, one at a time. So the machine's next input arrives on one of
/// those threads, and its actions are carried out there: none of them blocks.
///
/// Thread safety: the machine is in a `Locked` box, held only to feed it, never
/// while an action is carried out.
final class ClusterBatchRun: Sendable {
    private let machine: Locked<ClusterBatchDecision>
    private let requestId: String?
    /// The node's state, whose client, key budget and cache the run uses.
    private let state: ClusterState
    private let decided: @Sendable (ClusterBatchDecision.Decision) -> Void

    /// A run of `machine` through `state`'s client and budget; `decided` gets the decision once.
    init(
        _ machine: ClusterBatchDecision, requestId: String?, state: ClusterState,
        decided: @escaping @Sendable (ClusterBatchDecision.Decision) -> Void
    ) {
        self.machine = Locked(machine)
        self.requestId = requestId
        self.state = state
        self.decided = decided
    }

    /// Starts the decision.
    func start() {
        carryOut(machine.withLock { $0.start() })
    }

    private func carryOut(_ actions: [ClusterBatchDecision.Action]) {
        for action in actions {
            switch action {
            case .readRecord:
                readRecord()
            case .reserveRoom(let key):
                state.keyBudget.reserve(key, for: machine, in: state.cache, counting: (state.client, state.layout)) {
                    [self] in carryOut($0)
                }
            case .send(let transaction):
                state.client.transaction(transaction) { [self] answer in
                    carryOut(
                        machine.withLock { machine in
                            switch answer {
                            case .success(let result): machine.answered(result, cacheRevision: state.cache.revision)
                            case .failure(let error): machine.failed(error)
                            }
                        })
                }
            case .releaseRoom(let keys):
                for key in keys { state.keyBudget.release(key) }
            case .commitRoom(let keys, let revision):
                for key in keys { state.keyBudget.committed(key, at: revision) }
            case .decide(let decision):
                decided(decision)
            }
        }
    }

    /// Reads the record of the batch's `requestId` (only a batch too wide for etcd's default limit).
    private func readRecord() {
        guard let requestId else { return carryOut(machine.withLock { $0.recordRead(nil) }) }
        state.client.range(.key(state.layout.requestKey(requestId))) { [self] read in
            carryOut(
                machine.withLock { machine in
                    switch read {
                    case .success(let range): machine.recordRead(range.keyValues.first)
                    case .failure(let error): machine.failed(error)
                    }
                })
        }
    }
}
