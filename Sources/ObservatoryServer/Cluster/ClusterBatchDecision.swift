import ObservatoryEtcd
import ObservatoryWire

/// How one `batch` is decided against etcd: the rules of `ClusterState+Batch`,
/// as a machine that takes inputs (the `requestId`'s record, room in the key
/// budget, etcd's answer, a failure) and returns actions; the I/O is
/// `ClusterBatchRun`'s. The batch is one transaction (`ClusterBatchPlan`).
///
/// The rules:
/// - A batch too wide for etcd's default `--max-txn-ops` would be refused before
///   its `requestId`'s compare could find a duplicate, so its record is read
///   first: when there is one, its reply is the answer.
/// - Each key the batch creates needs room under `limits.maxKeys`, asked one
///   key after another before the transaction goes; a key without room refuses
///   the batch (`limit_exceeded` at that operation's index) and releases the
///   room the others got.
/// - When etcd refuses the compares, the room is released and the batch planned
///   again against what etcd read (or answered with the record of its
///   `requestId`), at most `maximumAttempts` times.
/// - Applied, the room is committed at the revision and held until the reply.
struct ClusterBatchDecision: ClusterRoomAsking {
    /// What a batch came to: its reply, the revision the cache must apply first,
    /// and the keys whose room in the key budget it holds until then.
    struct Decision: Equatable {
        /// The revision the cache must reach before the reply goes out (0: none).
        let revision: Int64
        /// The reply.
        let reply: Result<ReplyPayload, WireError>
        /// The keys the batch created, whose room is released after the reply.
        var reserved: [String] = []
    }

    /// What the shell does next.
    enum Action: Equatable {
        /// Reads the record of the batch's `requestId`; answer with `recordRead`.
        case readRecord
        /// Reserves room for creating this key; answer with `roomDecided`.
        case reserveRoom(String)
        /// Sends this transaction to etcd; answer with `answered` or `failed`.
        case send(EtcdTransaction)
        /// Ends these keys' reservations: their creates were refused or not applied.
        case releaseRoom([String])
        /// Notes that these keys' creates committed at this revision.
        case commitRoom([String], at: Int64)
        /// The batch is decided: reply once the cache applied the decision's revision.
        case decide(Decision)
    }

    private enum Phase: Equatable {
        case idle
        case readingRecord
        /// Asking room for `plan.creates[reserved.count]`.
        case reserving
        case sending
        case decided
    }

    /// The most times a batch is planned and sent.
    let maximumAttempts: Int
    private let operations: [BatchOperation<EncodedJSON>]
    private let requestId: String?
    private let makePlan: (_ current: [String: RawValueEntry], _ revisions: [String: Int64]) -> ClusterBatchPlan
    private var current: [String: RawValueEntry]
    private var revisions: [String: Int64]
    private var plan: ClusterBatchPlan?
    private var reserved: [String] = []
    private var attempts = 0
    private var phase = Phase.idle

    /// A decision of `operations` (with `requestId`), believing the keys hold
    /// `current` (etcd's `mod_revision` in `revisions` for keys whose clock was
    /// restarted), planned by `makePlan`.
    init(
        operations: [BatchOperation<EncodedJSON>], requestId: String?, current: [String: RawValueEntry],
        revisions: [String: Int64], maximumAttempts: Int = 64,
        makePlan: @escaping (_ current: [String: RawValueEntry], _ revisions: [String: Int64]) -> ClusterBatchPlan
    ) {
        self.operations = operations
        self.requestId = requestId
        self.current = current
        self.revisions = revisions
        self.maximumAttempts = max(1, maximumAttempts)
        self.makePlan = makePlan
    }

    /// Whether the batch is decided: the machine takes no more input.
    var isDecided: Bool { phase == .decided }

    /// Starts the decision: plans the batch.
    mutating func start() -> [Action] {
        guard phase == .idle else { return [] }
        return attempt()
    }

    /// The `readRecord` action's answer: the stored record of the `requestId`, if any.
    mutating func recordRead(_ stored: EtcdKeyValue?) -> [Action] {
        guard phase == .readingRecord else { return [] }
        if let stored, let duplicate = ClusterRequestRecord.duplicateReply(stored) {
            return decide(Decision(revision: duplicate.writtenVersion, reply: .success(duplicate)))
        }
        return reserveNext()
    }

    /// The key budget answered the `reserveRoom` action: room reserved, or
    /// refused with `refusal` (`limit_exceeded`).
    mutating func roomDecided(refusal: WireError?) -> [Action] {
        guard phase == .reserving, let plan, reserved.count < plan.creates.count else { return [] }
        let key = plan.creates[reserved.count]
        guard let refusal else {
            reserved.append(key)
            return reserveNext()
        }
        let index = operations.firstIndex { $0.key == key } ?? 0
        return releaseReserved() + decide(Decision(revision: 0, reply: .failure(refusal.at(index: index))))
    }

    /// etcd answered the batch's transaction, with the cache at `cacheRevision`.
    mutating func answered(_ answer: EtcdTransactionResult, cacheRevision: Int64) -> [Action] {
        guard phase == .sending, let plan else { return [] }
        let result = plan.outcome(of: answer)
        let keys = operations.map(\.key)
        guard result.succeeded else {
            let release = releaseReserved()
            if let duplicate = ClusterBatchPlan.duplicateReply(from: result, keyCount: keys.count) {
                return release + decide(Decision(revision: duplicate.writtenVersion, reply: .success(duplicate)))
            }
            (current, revisions) = ClusterBatchPlan.current(from: result, keys: keys)
            return release + attempt()
        }
        let committed = result.header.revision
        let commit: [Action] = reserved.isEmpty ? [] : [.commitRoom(reserved, at: committed)]
        // Also a batch that writes nothing waits: what it read may be ahead of the cache.
        let seen = max(current.values.map(\.version).max() ?? 0, cacheRevision)
        let revision = plan.writes ? committed : seen
        return commit
            + decide(
                Decision(
                    revision: revision, reply: plan.reply(committedAt: committed, current: seen), reserved: reserved)
            )
    }

    /// The record's read, a count of the key budget or the transaction failed.
    mutating func failed(_ error: EtcdError) -> [Action] {
        switch phase {
        case .idle, .decided: return []
        case .readingRecord, .reserving, .sending:
            let failure = ClusterState.batchFailure(error, operationCount: operations.count)
            return releaseReserved() + decide(Decision(revision: 0, reply: .failure(failure)))
        }
    }

    /// Plans the batch against `current`; reads the record first when it cannot fit.
    private mutating func attempt() -> [Action] {
        guard attempts < maximumAttempts else {
            let error = WireError(
                code: .unavailable, message: "the batch's keys changed too often to apply it; try again")
            return decide(Decision(revision: 0, reply: .failure(error)))
        }
        attempts += 1
        let plan = makePlan(current, revisions)
        self.plan = plan
        // Too wide for etcd's default limit, it would be refused before its
        // `requestId`'s compare could find a duplicate (an applied batch of
        // 128 sets, sent again, has every key to compare): look it up first.
        if !plan.fits, requestId != nil {
            phase = .readingRecord
            return [.readRecord]
        }
        return reserveNext()
    }

    /// Asks room for the next key the plan creates, or sends the transaction once all have it.
    private mutating func reserveNext() -> [Action] {
        guard let plan else { return [] }
        guard reserved.count < plan.creates.count else {
            phase = .sending
            return [.send(plan.transaction)]
        }
        phase = .reserving
        return [.reserveRoom(plan.creates[reserved.count])]
    }

    private mutating func releaseReserved() -> [Action] {
        defer { reserved = [] }
        return reserved.isEmpty ? [] : [.releaseRoom(reserved)]
    }

    private mutating func decide(_ decision: Decision) -> [Action] {
        phase = .decided
        return [.decide(decision)]
    }
}
