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
    /// The node's state, whose client, key budget and cache the run uses.
    private let state: ClusterState
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
        self.state = state
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
                state.keyBudget.reserve(key, for: machine, in: state.cache, counting: (state.client, state.layout)) {
                    [self] in carryOut($0)
                }
            case .send(let transaction):
                state.groupedWrites.submit(transaction, for: turn.id, keys: turn.keys) { [self] answer in
                    carryOut(
                        machine.withLock { machine in
                            switch answer {
                            case .success(let result): machine.answered(result)
                            case .failure(let error): machine.failed(error)
                            }
                        })
                }
            case .releaseRoom:
                state.keyBudget.release(key)
            case .commitRoom(let revision):
                state.keyBudget.committed(key, at: revision)
            case .decide(let decision):
                state.groupedWrites.finish(turn.id)
                decided(decision)
            }
        }
    }
}
