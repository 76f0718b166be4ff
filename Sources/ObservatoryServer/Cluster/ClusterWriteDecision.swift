import ObservatoryEtcd
import ObservatoryWire

/// How one write is decided against etcd: the rules of `ClusterState`'s write
/// path, as a machine that takes inputs (room in the key budget, etcd's answer,
/// a failure) and returns actions (reserve room, send this transaction, release
/// or commit the room, reply); the I/O is `ClusterState`'s.
///
/// The rules:
/// - The write is planned (`ClusterWritePlan`) against what the node believes
///   the key holds, and its transaction sent; etcd's compare decides it.
/// - **Creates** (a set of a key believed absent that changes it) first need
///   room under `limits.maxKeys`: the machine asks for it before sending, and
///   refuses the write with `limit_exceeded` when there is none. The room is
///   released when the transaction fails or etcd refuses the compare, and
///   committed at the revision when etcd applied it (released once replied).
/// - **Retries**: when the compare fails (another node's write changed the key),
///   the write is planned again against what etcd returned, at most
///   `maximumAttempts` times; then the reply is `unavailable`.
/// - **Duplicates**: when the compare fails because the write's `requestId`
///   was applied already, the reply is the recorded one.
/// - **Failures**: when etcd cannot be reached, the reply is `unavailable`,
///   saying whether the write may have been applied.
struct ClusterWriteDecision: ClusterRoomAsking {
    /// What a write came to: its reply, the revision the cache must apply before
    /// it goes out, and whether it holds a reservation of the key budget until then.
    struct Decision: Equatable {
        /// The revision the cache must reach before the reply goes out (0: none).
        let revision: Int64
        /// The reply.
        let reply: Result<ReplyPayload, WireError>
        /// Whether the write holds room in the key budget until it is replied.
        var isCreate = false
        /// Whether the write put the key at `revision`: changed it, or restarted its clock.
        var isChange = false
    }

    /// What the shell does next.
    enum Action: Equatable {
        /// Reserves room for creating the key; answer with `roomDecided`.
        case reserveRoom
        /// Sends this transaction to etcd; answer with `answered` or `failed`.
        case send(EtcdTransaction)
        /// Ends the key's reservation: the create was refused or not applied.
        case releaseRoom
        /// Notes that the key's create committed at this revision.
        case commitRoom(at: Int64)
        /// The write is decided: reply once the cache applied the decision's revision.
        case decide(Decision)
    }

    /// What the machine waits for.
    private enum Phase: Equatable {
        case idle
        case reserving
        case sending(isCreate: Bool)
        case decided
    }

    /// The most times a write is planned and sent: only other nodes' writes race with it.
    let maximumAttempts: Int
    private let write: Write
    private let key: String
    private let author: Author
    private let layout: ClusterKeyLayout
    private let leases: (session: Int64, request: Int64, expiry: Int64)
    private let now: Int64
    /// Whether the key may have a deletion marker, which a create then removes.
    private let deletionMarker: Bool
    private var current: RawValueEntry?
    private var currentRevision: Int64?
    private var plan: ClusterWritePlan?
    private var attempts = 0
    private var phase = Phase.idle

    /// A decision of `write` of `key` by `author`, believing the key holds
    /// `current` (etcd's `mod_revision` `currentRevision` when its clock was restarted),
    /// and that the key may have a deletion marker (`deletionMarker`).
    init(
        write: Write, key: String, author: Author, current: RawValueEntry?, currentRevision: Int64?,
        layout: ClusterKeyLayout, leases: (session: Int64, request: Int64, expiry: Int64), now: Int64,
        deletionMarker: Bool = true, maximumAttempts: Int = 64
    ) {
        self.write = write
        self.key = key
        self.author = author
        self.current = current
        self.currentRevision = currentRevision
        self.layout = layout
        self.leases = leases
        self.now = now
        self.deletionMarker = deletionMarker
        self.maximumAttempts = max(1, maximumAttempts)
    }

    /// Whether the write is decided: the machine takes no more input.
    var isDecided: Bool { phase == .decided }

    /// Starts the decision: plans the write.
    mutating func start() -> [Action] {
        guard phase == .idle else { return [] }
        return attempt()
    }

    /// The key budget answered the `reserveRoom` action: room reserved, or
    /// refused with `refusal` (`limit_exceeded`).
    mutating func roomDecided(refusal: WireError?) -> [Action] {
        guard phase == .reserving, let plan else { return [] }
        if let refusal { return decide(Decision(revision: 0, reply: .failure(refusal))) }
        phase = .sending(isCreate: true)
        return [.send(plan.transaction)]
    }

    /// etcd answered the transaction of the last `send` action.
    mutating func answered(_ result: EtcdTransactionResult) -> [Action] {
        guard case .sending(let isCreate) = phase, let plan else { return [] }
        let release: [Action] = isCreate ? [.releaseRoom] : []
        guard result.succeeded else {
            if let duplicate = ClusterWritePlan.duplicateReply(from: result) {
                return release + decide(Decision(revision: duplicate.writtenVersion, reply: .success(duplicate)))
            }
            let read = ClusterWritePlan.current(from: result, key: key)
            (current, currentRevision) = (read?.entry, read?.revision)
            return release + attempt()
        }
        let committed = result.header.revision
        let isChange = plan.outcome == .change || plan.restartsExpiry
        // Also an answer without a change waits: `current` may come from etcd, ahead of the cache.
        // A restart of an expiring key's clock waits for its put like a change.
        let revision = isChange ? committed : current?.version ?? 0
        let decision = Decision(
            revision: revision, reply: plan.reply(committedAt: committed), isCreate: isCreate, isChange: isChange)
        return (isCreate ? [.commitRoom(at: committed)] : []) + decide(decision)
    }

    /// The transaction of the last `send` action, or the budget's count, failed.
    mutating func failed(_ error: EtcdError) -> [Action] {
        let release: [Action]
        switch phase {
        case .sending(isCreate: true): release = [.releaseRoom]
        case .sending, .reserving: release = []
        case .idle, .decided: return []
        }
        return release + decide(Decision(revision: 0, reply: .failure(ClusterState.unavailable(error))))
    }

    /// Plans the write against `current` and sends it, after reserving room for a create.
    private mutating func attempt() -> [Action] {
        guard attempts < maximumAttempts else {
            let error = WireError(code: .unavailable, message: "\"\(key)\" changed too often to write it; try again")
            return decide(Decision(revision: 0, reply: .failure(error)))
        }
        attempts += 1
        let plan = ClusterWritePlan(
            write: write, author: author, current: current, currentRevision: currentRevision, layout: layout,
            lease: leases.session, requestLease: leases.request, expiryLease: leases.expiry, now: now,
            deletionMarker: deletionMarker)
        self.plan = plan
        // Only a set changes a missing key: it creates it.
        if current == nil, plan.outcome == .change {
            phase = .reserving
            return [.reserveRoom]
        }
        phase = .sending(isCreate: false)
        return [.send(plan.transaction)]
    }

    private mutating func decide(_ decision: Decision) -> [Action] {
        phase = .decided
        return [.decide(decision)]
    }
}
