import Observatory
import ObservatoryEtcd
import ObservatoryWire

/// One write of a cluster node under way: carries out the actions of its
/// `ClusterWriteDecision` (the I/O shell of that machine) and feeds it what
/// comes back, with no thread waiting in between.
///
/// Room in the key budget is reserved at once far from `limits.maxKeys`, or on
/// the budget's serial queue near it (`ClusterKeyBudget`); the transaction goes
/// through the node's write groups in its keys' turn (`ClusterGroupedWrites`),
/// whose answer comes on the etcd client's thread of exchanges. So the
/// machine's next input arrives on whichever of those threads, and its actions
/// are carried out there: none of them blocks.
///
/// Thread safety: the machine is in a `Locked` box, held only to feed it, never
/// while an action is carried out.
final class ClusterWriteRun: Sendable {
    private let machine: Locked<ClusterWriteDecision>
    private let key: String
    /// The write's identifier in `groupedWrites` and the names whose turn it holds.
    private let turn: (id: Int, keys: [String])
    private let client: EtcdClient
    private let layout: ClusterKeyLayout
    private let cache: SharedStore
    private let keyBudget: ClusterKeyBudget
    private let groupedWrites: ClusterGroupedWrites
    private let decided: @Sendable (ClusterWriteDecision.Decision) -> Void

    /// A run of `machine` for `key`, in `turn`, through `state`'s budget and
    /// groups; `decided` gets the decision once (its keys' turns passed on already).
    init(
        _ machine: ClusterWriteDecision, key: String, turn: (id: Int, keys: [String]), state: ClusterState,
        decided: @escaping @Sendable (ClusterWriteDecision.Decision) -> Void
    ) {
        self.machine = Locked(machine)
        self.key = key
        self.turn = turn
        client = state.client
        layout = state.layout
        cache = state.cache
        keyBudget = state.keyBudget
        groupedWrites = state.groupedWrites
        self.decided = decided
    }

    /// Starts the decision.
    func start() {
        carryOut(machine.withLock { $0.start() })
    }

    private func carryOut(_ actions: [ClusterWriteDecision.Action]) {
        for action in actions {
            switch action {
            case .reserveRoom:
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
                groupedWrites.submit(transaction, for: turn.id, keys: turn.keys) { [self] answer in
                    carryOut(
                        machine.withLock { machine in
                            switch answer {
                            case .success(let result): machine.answered(result)
                            case .failure(let error): machine.failed(error)
                            }
                        })
                }
            case .releaseRoom:
                keyBudget.release(key)
            case .commitRoom(let revision):
                keyBudget.committed(key, at: revision)
            case .decide(let decision):
                groupedWrites.finish(turn.id)
                decided(decision)
            }
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
