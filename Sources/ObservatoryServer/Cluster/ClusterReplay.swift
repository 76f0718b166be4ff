import ObservatoryEtcd
import ObservatoryWire

/// Rebuilds, from etcd's history, the events of one target after a resume
/// point that the node's own history no longer reaches: a state machine fed
/// the target's entries at the resume point and then the events of a watch of
/// the cluster's prefix from the next revision on; it says when it has every
/// change up to `endRevision` or must give up.
///
/// The events are made as the node's cache makes them (`ClusterEventMapper`,
/// then `StoreState.planReplicated` on the target's entries, then the event
/// encoded once), so their bytes are those every node sent live: same `old`,
/// author, session and reason.
///
/// Bounded: it holds the target's entries and the changes kept, at most
/// `maximumChanges` of them and `maximumBytes` of their events; beyond either
/// it gives up (the node then answers a snapshot).
struct ClusterReplay {
    /// What the replay needs next, or what it came to.
    enum Step: Equatable {
        /// More events are needed to reach `endRevision`.
        case needsMore
        /// Every change of the target in (`resumeRevision`, `endRevision`], oldest first.
        case finished([StoreChange])
        /// The changes to replay exceed a cap: answer a snapshot instead.
        case overLimit
    }

    /// The observed key or prefix.
    let target: Target
    /// The client's resume point: the replay holds the changes after it.
    let resumeRevision: Int64
    /// The revision the observation started at: the replay ends there, live events follow.
    let endRevision: Int64
    private let layout: ClusterKeyLayout
    private let maximumChanges: Int
    private let maximumBytes: Int
    /// The target's entries as of the last event taken.
    private var state: StoreState
    private var changes: [StoreChange] = []
    private var bytes = 0
    private var outcome: Step = .needsMore

    /// A replay of `target` from `baseline`, its entries at `resumeRevision`, up to `endRevision`.
    init(
        target: Target, baseline: [RawValueEntry], after resumeRevision: Int64, through endRevision: Int64,
        layout: ClusterKeyLayout, maximumChanges: Int, maximumBytes: Int
    ) {
        self.target = target
        self.resumeRevision = resumeRevision
        self.endRevision = endRevision
        self.layout = layout
        self.maximumChanges = maximumChanges
        self.maximumBytes = maximumBytes
        state = StoreState.replica(of: baseline, at: resumeRevision)
        if endRevision <= resumeRevision { outcome = .finished([]) }
    }

    /// Takes the next events of the watch (whole revisions, in revision order);
    /// events after `endRevision` are not the replay's (the live events bring them).
    mutating func receive(_ events: [EtcdWatchEvent]) -> Step {
        guard outcome == .needsMore else { return outcome }
        let within = events.filter { $0.revision > resumeRevision && $0.revision <= endRevision }
        let times = ClusterEventMapper.times(from: within, layout: layout)
        for change in ClusterEventMapper.changes(from: within, layout: layout)
        where ChangeHistory.matches(change.key, target) {
            guard let planned = state.planReplicated(change, at: times[change.version]),
                let made = state.apply(planned).change
            else { continue }
            let encoded = made.encoded()
            changes.append(encoded)
            bytes += encoded.frameByteCount
            guard changes.count <= maximumChanges, bytes <= maximumBytes else {
                changes = []
                outcome = .overLimit
                return outcome
            }
        }
        if let last = events.last?.revision, last >= endRevision { outcome = .finished(changes) }
        return outcome
    }

    /// Takes a progress report: every change up to `revision` has been delivered.
    mutating func progressed(to revision: Int64) -> Step {
        if outcome == .needsMore, revision >= endRevision { outcome = .finished(changes) }
        return outcome
    }
}
