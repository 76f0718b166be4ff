import Dispatch
import Foundation
import Observatory
import ObservatoryEtcd
import ObservatoryLogging
import ObservatoryWire

/// The shared state of a cluster node (docs/protocol.md, "Cluster mode"): a cache of
/// the state in etcd, fed by one watch, with every write an etcd transaction.
///
/// - **Reads** (`get`, `list`, `observe`, snapshots and resumes) come from the
///   cache, a `SharedStore` kept in memory, to which the watch of the whole prefix
///   applies each committed change in revision order (`ClusterEventMapper`).
///   A resume from before the cache's history is read back from etcd and
///   answered later (`ClusterState+Replay.swift`, `ClusterReplay`).
/// - **Writes** never block the caller's event loop, and no thread waits for
///   etcd: `apply` returns the session's `ReplySlot` and starts the write's decision
///   (`ClusterWriteDecision`, a machine carried out by `ClusterWriteRun`) from a
///   queue of the writer's session, which waits until the write is decided (so
///   one session's writes reach etcd in request order, while writes of
///   different sessions are in flight together); the transactions go through
///   the etcd client's calls with a completion. The reply is answered into the slot once etcd
///   committed the write and the cache applied its revision, or with
///   `unavailable` when etcd cannot be reached.
///   The writes go to etcd through one machine of groups and turns
///   (`ClusterWriteGroups`, `ClusterGroupedWrites`: a group of one write each,
///   since writes of one group would share a revision), where writes of one key
///   on this node take turns; creates must find room under `limits.maxKeys`
///   (`ClusterKeyBudget`).
/// - **Session-bound keys** are attached to the node's lease, which its one lease
///   keeper renews, and deleted when their session ends (`ClusterSessionKeys`
///   says why one lease per node keeps the guarantees); the node's threads do
///   not grow with its sessions.
/// - **The epoch** follows from etcd's cluster id and the prefix (`ClusterEpoch`).
///
/// Thread safety: the cache is a `SharedStore` (its own lock); the watch and the
/// sessions' queues and keys are in `Locked` boxes, held only to read or change
/// them, never across a call to etcd.
///
/// It holds about eighteen stored properties because one node's parts share one
/// lifetime: the etcd client and its watch, the cache, the sessions' write queues
/// and keys, the write groups and the key budget, the lease keeper and the request-id
/// leases, and the settings;
/// split across types, a node's start and stop would be spread over all of them.
final class ClusterState: SharedState {
    /// A session's queue of writes.
    private struct SessionLink {
        let queue: DispatchQueue
    }

    let epoch: String
    /// The node's view of the state: what the watch has applied.
    let cache: SharedStore
    /// The cache's revision gate, which its watch advances: a write's reply waits
    /// for its revision to pass it, so the writer's next request sees the write.
    var gate: RevisionGate { cache.gate }
    /// The write replies waiting for the cache to apply their revision, with the node's one timer for them.
    let appliedReplies: ClusterAppliedReplies
    /// The leases of expiring keys, one per second they expire in.
    let expiryLeases = ClusterExpiryLeases()
    /// etcd's `mod_revision` of the keys whose clock a put restarted (their version is older).
    let restartedRevisions = Locked<[String: Int64]>([:])
    /// The keys whose deletion marker etcd holds, as the node's watch last saw
    /// them: a create of one of them removes its marker, a create of any other
    /// key is one put.
    let deletionMarkers: Locked<Set<String>>
    /// The expired deletes the watch announced and `expireDue` has not counted yet.
    let expiredSeen = Locked(0)
    /// A tag unique among the nodes of the cluster, for session ids.
    let nodeTag: String
    let client: EtcdClient
    let layout: ClusterKeyLayout
    let configuration: ClusterConfiguration
    let logger: Logger
    /// The watch feeding the cache, and whether the state is closed (no new watch then).
    let watch = Locked<(current: EtcdWatch?, isClosed: Bool)>((nil, false))
    /// Told the revision the cache was reloaded at, after its watch lost continuity.
    let viewLostHandler = Locked<(@Sendable (Int64) -> Void)?>(nil)
    private let sessions = Locked<[String: SessionLink]>([:])
    /// Renews the node's lease (and any lease granted after its loss), on one thread.
    private let keeper: EtcdLeaseKeeper
    /// The sessions' session-bound keys, on the node's lease: its id names the node; it ends when the node dies.
    let sessionKeys: ClusterSessionKeys
    /// The leases the records of `requestId`s are written on.
    let requestLeases = ClusterRequestLeases()
    let workers = DispatchQueue(label: "observatory.cluster.writes", attributes: .concurrent)
    /// The sessions' key deletions under way, which `close()` waits for.
    private let sessionEnds = DispatchGroup()
    /// How often a write is planned again after the key changed under it: only
    /// other nodes' writes race with it (this node's take turns in `groupedWrites`).
    static let maximumAttempts = 64
    /// Sends the writes' transactions to etcd in groups; this node's writes of one key take turns there.
    let groupedWrites: ClusterGroupedWrites
    /// `limits.maxKeys`, decided by this node.
    let keyBudget: ClusterKeyBudget
    /// The most changes and bytes of events a resume reads back from etcd
    /// (`limits.historyChanges`, `limits.historyBytes`: what the node's own history may hold).
    let replayLimits: (changes: Int, bytes: Int)

    /// Connects to etcd, reads the state under the prefix and starts the watch.
    ///
    /// - Throws: `EtcdError` when etcd cannot be reached (blocks until it answers
    ///   or the request timeout passes: called before the server starts).
    init(
        configuration: ClusterConfiguration, historyChanges: Int, historyBytes: Int = ServerLimits().historyBytes,
        maxKeys: Int, logger: Logger
    ) throws(EtcdError) {
        self.configuration = configuration
        replayLimits = (historyChanges, historyBytes)
        keyBudget = ClusterKeyBudget(maxKeys: maxKeys)
        self.logger = logger
        let timeout = Duration.milliseconds(configuration.requestTimeoutMilliseconds)
        client = try EtcdClient(urls: configuration.etcd, requestTimeout: timeout)
        let layout = ClusterKeyLayout(prefix: configuration.prefix)
        self.layout = layout
        let status = try client.status()
        epoch = ClusterEpoch.name(clusterID: status.clusterID, prefix: configuration.prefix)
        let nodeLease = try client.grantLease(ttl: Int64(configuration.sessionTTLSeconds))
        nodeTag = String(UInt64(bitPattern: nodeLease.id), radix: 36)
        keeper = EtcdLeaseKeeper(client: client)
        groupedWrites = ClusterGroupedWrites(client: client)
        sessionKeys = ClusterSessionKeys(
            nodeLease: nodeLease, client: client, layout: layout, keeper: keeper,
            timeToLive: Int64(configuration.sessionTTLSeconds), logger: logger, retries: workers)
        // The cache starts up to `historyChanges` revisions back and its watch replays them, so that
        // observers can resume on this node from before it started, as on the nodes that saw them live.
        let current = try client.range(layout.values, limit: 1).header.revision
        // The markers now; the watch's replay of the revisions before brings them to this state again.
        deletionMarkers = Locked(Self.deletionMarkers(try client.range(layout.deletions), layout))
        let (entries, revision) = try Self.read(client, layout, earliestAfter: current - Int64(historyChanges))
        cache = SharedStore(replicating: entries, at: revision, epoch: epoch, historyChanges: historyChanges)
        appliedReplies = ClusterAppliedReplies(gate: cache.gate, timeout: timeout)
        startWatch(after: revision)
        // A revision in the prefix after `current`, which the watch brings once it has replayed the rest.
        let announced = try client.put(layout.nodeKey(nodeTag), Array(nodeTag.utf8), lease: nodeLease.id)
        catchUp(to: announced.header.revision)
        logger.info(
            "cluster mode: etcd \(configuration.etcd.joined(separator: ",")), prefix \(configuration.prefix), "
                + "epoch \(epoch), \(CountedNoun.text(cache.keyCount, "key")) at revision \(cache.revision), "
                + "resumes from revision \(revision) on")
    }

    var revision: Int64 {
        cache.revision
    }

    func apply(_ write: Write, by author: Author, answering slot: ReplySlot) throws(WireError) -> WriteReply {
        let queue = queue(of: author.session)
        queue.async { [self] in
            // The session's next write (or its end) waits until this one is decided.
            queue.suspend()
            perform(write, by: author, answering: slot) { queue.resume() }
        }
        return .pending(slot)
    }

    func get(_ key: String) -> RawValueEntry? {
        cache.get(key)
    }

    func list(
        prefix: String, after: String?, limit: Int, where isIncluded: (String) -> Bool
    ) -> (keys: [KeyVersion], more: Bool) {
        cache.list(prefix: prefix, after: after, limit: limit, where: isIncluded)
    }

    /// From the node's window: the changes its watch applied to its cache,
    /// with the horizon below which it holds none.
    func history(_ query: HistoryQuery, maxBytes: Int, where isIncluded: (String) -> Bool) -> HistoryPage {
        cache.history(query, maxBytes: maxBytes, where: isIncluded)
    }

    func observe<Failure: Error>(
        _ target: Target, from resumePoint: ResumePoint?, by observer: some Observer, answering slot: ReplySlot,
        subscribe: (_ ignoringThrough: Int64) throws(Failure) -> Bool, receive: @escaping (StoreChange) -> Void
    ) throws(Failure) -> ObservationStart {
        var start = try cache.observe(target, from: resumePoint, by: observer, subscribe: subscribe, receive: receive)
        // From before the cache's history: read back from etcd what it no longer holds, answered later.
        if let resumePoint, start.replay == nil, resumePoint.epoch.map({ $0 == epoch }) ?? true,
            resumePoint.revision < start.revision
        {
            replay(target, after: resumePoint.revision, until: start, answering: slot)
            start.pending = slot
        }
        return start
    }

    func stopObserving(key: String, by observer: some Observer) {
        cache.stopObserving(key: key, by: observer)
    }

    func stopObservingPrefixes(by observer: some Observer) {
        cache.stopObservingPrefixes(by: observer)
    }

    /// Deletes nothing: etcd deletes expiring keys with their leases, and a
    /// node deletes its sessions' expiring keys at their time (`ClusterState+Expiry.swift`).
    /// Returns the expired deletes this node's watch announced since the last
    /// call, which the expiry timer counts.
    func expireDue(now: Int64, limit: Int) -> (expired: Int, failure: WireError?) {
        (
            expiredSeen.withLock { seen in
                defer { seen = 0 }
                return seen
            }, nil
        )
    }

    /// Deletes the session's session-bound keys after its writes in flight, and
    /// every node's watch announces them with `session_ended`. Returns at once;
    /// the deletions follow.
    func endSession(_ session: String) -> (deleted: Int, failure: WireError?) {
        guard let link = sessions.withLock({ $0.removeValue(forKey: session) }) else { return (0, nil) }
        sessionEnds.enter()
        link.queue.async { [sessionKeys, sessionEnds] in
            defer { sessionEnds.leave() }
            sessionKeys.end(session)
        }
        return (0, nil)
    }

    func close() {
        // The sessions ended before the server closes the state: their keys go now, not at expiry.
        let patience = DispatchTimeInterval.milliseconds(2 * configuration.requestTimeoutMilliseconds)
        if sessionEnds.wait(timeout: .now() + patience) == .timedOut {
            logger.warning("cluster: some sessions' keys were not deleted in time; they go with the node's lease")
        }
        let stopped = watch.withLock { watch in
            watch.isClosed = true
            return watch.current.take()
        }
        stopped?.cancel()
        keeper.stop()
        // Every session has ended (and deleted its keys) by now; revoke the node's lease too.
        sessionKeys.close()
        client.close()
    }

    /// Stops as a node that dies would: no lease is revoked, so its sessions'
    /// keys go only when the node's lease expires. For tests of that expiry.
    func abandon() {
        sessions.withLock { $0 = [:] }
        sessionKeys.abandon()
        keeper.stop()
        let stopped = watch.withLock { watch in
            watch.isClosed = true
            return watch.current.take()
        }
        stopped?.cancel()
    }

    /// Sets what runs after the watch lost continuity and the cache was reloaded
    /// at a revision: the server closes its observers' connections with `unavailable`.
    func onViewLost(_ handler: @escaping @Sendable (Int64) -> Void) {
        viewLostHandler.withLock { $0 = handler }
    }

    // MARK: Writes

    /// The serial queue of `session`'s writes, made on its first write.
    ///
    /// On `workers`, whose threads are about as many as the cores: a write holds
    /// its session's queue only while it is started (`apply` suspends the queue
    /// until the write is decided, so the session's writes reach etcd in request
    /// order), and no thread waits for etcd meanwhile (`ClusterWriteRun`), so the
    /// node's threads do not follow the sessions writing at once.
    func queue(of session: String) -> DispatchQueue {
        sessions.withLock { sessions in
            if let link = sessions[session] { return link.queue }
            let queue = DispatchQueue(label: "observatory.cluster.session", target: workers)
            sessions[session] = SessionLink(queue: queue)
            return queue
        }
    }

    /// Starts one write's decision (`ClusterWriteDecision`, carried out by
    /// `ClusterWriteRun`) in its key's turn on this node, answers it once the
    /// cache has applied its revision, and calls `done` once it is decided.
    /// On the session's queue; returns before etcd answers.
    private func perform(
        _ write: Write, by author: Author, answering slot: ReplySlot, done: @escaping @Sendable () -> Void
    ) {
        let (key, sessionBound, requestId, ttl): (String, Bool, String?, Int64?)
        switch write {
        case .set(let name, _, _, let bound, let id, let seconds):
            (key, sessionBound, requestId, ttl) = (name, bound, id, seconds)
        case .delete(let name, _, let id): (key, sessionBound, requestId, ttl) = (name, false, id, nil)
        }
        let now = KeyExpiry.wallMilliseconds()
        let deadline = ttl.map { now + $0 * 1_000 }
        let leases: (session: Int64, request: Int64, expiry: Int64)
        do throws(EtcdError) {
            // Granted on first use only (or when lost, or each second of expiry): nearly always at hand.
            let lease = sessionBound ? try sessionKeys.lease() : 0
            let requestLease = requestId != nil ? try requestLeases.current(client) : 0
            let expiryLease = try deadline.map { deadline throws(EtcdError) in
                sessionBound ? 0 : try expiryLeases.lease(for: deadline, client)
            }
            leases = (lease, requestLease, expiryLease ?? 0)
        } catch {
            answer(slot, .init(revision: 0, reply: .failure(Self.unavailable(error))), key: key)
            done()
            return
        }
        let machine = ClusterWriteDecision(
            write: write, key: key, author: author, current: cache.get(key),
            currentRevision: restartedRevisions.withLock { $0[key] }, layout: layout, leases: leases, now: now,
            deletionMarker: deletionMarkers.withLock { $0.contains(key) }, maximumAttempts: Self.maximumAttempts)
        let turn = (id: groupedWrites.begin(), keys: ["key:" + key] + (requestId.map { ["requestId:" + $0] } ?? []))
        let run = ClusterWriteRun(machine, key: key, turn: turn, state: self) { [self] decision in
            if sessionBound, decision.isChange { sessionKeys.hold(key, at: decision.revision, by: author.session) }
            answer(slot, decision, key: key)
            if sessionBound, let deadline, case .success = decision.reply { expireSessionBound(key, at: deadline) }
            done()
        }
        run.start()
    }

    /// Answers `decision`'s reply into `slot` once the cache applied its
    /// revision, then releases the room a create held in the key budget.
    private func answer(_ slot: ReplySlot, _ decision: ClusterWriteDecision.Decision, key: String) {
        answerWhenApplied(decision.revision, decision.reply, slot) { [keyBudget] in
            if decision.isCreate { keyBudget.release(key) }
        }
    }

    /// Answers `reply` into `slot` once the cache applied `revision`, or
    /// `unavailable` if the watch has not brought it within the request timeout;
    /// then runs `finally`. Each runs once, whichever comes first (`ClusterAppliedReplies`).
    func answerWhenApplied(
        _ revision: Int64, _ reply: Result<ReplyPayload, WireError>, _ slot: ReplySlot,
        finally: @escaping @Sendable () -> Void
    ) {
        appliedReplies.answer(reply, at: revision, { slot.answer(.reply($0)) }, finally: finally)
    }

    /// The wire error for an etcd failure: the write may or may not have been applied.
    static func unavailable(_ error: EtcdError) -> WireError {
        let outcome = error.mayHaveBeenApplied ? "may have been applied" : "was not applied"
        return WireError(
            code: .unavailable,
            message: "etcd cannot be reached (\(error.message)); the write \(outcome): send it again with its requestId"
        )
    }
}
