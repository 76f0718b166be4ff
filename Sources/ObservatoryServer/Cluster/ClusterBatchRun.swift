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
    private let client: EtcdClient
    private let layout: ClusterKeyLayout
    private let cache: SharedStore
    private let keyBudget: ClusterKeyBudget
    private let decided: @Sendable (ClusterBatchDecision.Decision) -> Void

    /// A run of `machine` through `state`'s client and budget; `decided` gets the decision once.
    init(
        _ machine: ClusterBatchDecision, requestId: String?, state: ClusterState,
        decided: @escaping @Sendable (ClusterBatchDecision.Decision) -> Void
    ) {
        self.machine = Locked(machine)
        self.requestId = requestId
        client = state.client
        layout = state.layout
        cache = state.cache
        keyBudget = state.keyBudget
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
                keyBudget.reserve(key, in: cache, committedKeys: countKeys) { [self, keyBudget] room in
                    carryOut(
                        machine.withLock { machine in
                            switch room {
                            case .success(let hasRoom): machine.roomDecided(refusal: hasRoom ? nil : keyBudget.exceeded)
                            case .failure(let error): machine.failed(error)
                            }
                        })
                }
            case .send(let transaction):
                client.transaction(transaction) { [self, cache] answer in
                    carryOut(
                        machine.withLock { machine in
                            switch answer {
                            case .success(let result): machine.answered(result, cacheRevision: cache.revision)
                            case .failure(let error): machine.failed(error)
                            }
                        })
                }
            case .releaseRoom(let keys):
                for key in keys { keyBudget.release(key) }
            case .commitRoom(let keys, let revision):
                for key in keys { keyBudget.committed(key, at: revision) }
            case .decide(let decision):
                decided(decision)
            }
        }
    }

    /// Reads the record of the batch's `requestId` (only a batch too wide for etcd's default limit).
    private func readRecord() {
        guard let requestId else { return carryOut(machine.withLock { $0.recordRead(nil) }) }
        client.range(.key(layout.requestKey(requestId))) { [self] read in
            carryOut(
                machine.withLock { machine in
                    switch read {
                    case .success(let range): machine.recordRead(range.keyValues.first)
                    case .failure(let error): machine.failed(error)
                    }
                })
        }
    }

    /// How many keys the prefix holds in etcd, at which revision (blocking: on the budget's serial queue).
    private var countKeys: @Sendable () throws(EtcdError) -> (count: Int, revision: Int64) {
        { [client, layout] () throws(EtcdError) in
            let range = try client.range(layout.values, limit: 1)
            return (Int(range.count), range.header.revision)
        }
    }
}
