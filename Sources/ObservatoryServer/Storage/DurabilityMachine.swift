import ObservatoryWire

/// The rules for acknowledging stored changes, as a plain value: how far the log
/// is written and synced, how far replies and events may go, which changes an
/// fsync failure took away from their writers, and whether storage refuses changes.
///
/// `Storage`, its file shell, feeds it what happened to the files (a change was
/// appended, an fsync started, ended or failed, a snapshot replaced the logs,
/// storage closed) and carries out the `Actions` it returns. This is the one place
/// that knows the fsync policy:
/// - `everysec`: a change is acknowledged once `write(2)` took it, unless an fsync
///   has run for more than `stalledSyncNanoseconds`: then acknowledging waits for it,
///   so no reply gets ahead of a stuck disk.
/// - `always`: a change is acknowledged once an fsync covers it. An append wakes
///   the syncer, and the changes written during one fsync share the next (group
///   commit); a loop turn's batch is synced by its writer instead, right after
///   its `write(2)` and before the turn's replies are flushed, as Redis runs its
///   fsync per event-loop iteration (`appended(through:at:writerSyncs:)`).
///   One fsync runs at a time: a sync that would start while another runs is
///   refused, and the one running wakes the syncer when it ends if anything
///   written is left uncovered, so no change waits for an fsync nobody runs.
///
/// A failed fsync, or a log that could not be cut back after a failed write,
/// makes storage refuse changes until a snapshot rewrites everything. Under
/// `always`, the changes that were waiting for an fsync are then lost to their
/// writers: they are answered with an error (`lose`, which the revision gate
/// records), never acknowledged.
///
/// A failed batch write (`batchWriteFailed`: changes the store applied in memory
/// and buffered for the end of the loop turn, which `write(2)` refused) loses
/// every change of the batch, under any policy, and refuses changes until the
/// server restarts (`refusal`). No snapshot ends that: the lost revisions are
/// never acknowledged in this process, so no later change may take their
/// numbers, and the acknowledged revision never passes them (a reply still
/// queued for one of them turns into its error whenever it is looked at).
/// Fsyncs go on for what was written before; no snapshot is written any more
/// (`allowsSnapshots`).
///
/// Its stored properties (the written, synced and acknowledged revisions, the
/// stall, the failure, the refusal, the lost ranges and the policy) are the
/// inputs of one decision and change in one step, which is what keeps them consistent.
struct DurabilityMachine: Equatable {
    /// What the shell does after an input.
    struct Actions: Equatable {
        /// Replies and events up to this revision may go out now: the revision
        /// gate advances to it.
        var acknowledge: Int64?
        /// These changes are lost to their writers (answered with
        /// `lostChangeError`): the revision gate records them and wakes their waiters.
        var lose: ClosedRange<Int64>?
        /// Nothing will be acknowledged any more: the revision gate closes.
        var closeGate = false
        /// The syncer thread has work: a change waits for an fsync, or recovery must start.
        var wakeSyncer = false

        /// Nothing to do.
        static let none = Actions()
    }

    /// `always` or `everysec`; storage does not exist under `none`.
    let policy: FsyncPolicy
    /// How long an `everysec` fsync may run before acknowledging waits for it.
    let stalledSyncNanoseconds: UInt64
    /// The revision of the last change `write(2)` took.
    private(set) var writtenRevision: Int64
    /// The revision of the last change known to be on disk.
    private(set) var syncedRevision: Int64
    /// How far replies to writes and events may go out.
    private(set) var acknowledgedRevision: Int64
    /// When the fsync under way started (uptime nanoseconds), if one is.
    private(set) var syncStartedAt: UInt64?
    /// Why storage refuses changes, while it does.
    private(set) var failure: String?
    /// Whether the log's end cannot be trusted (a failed write could not be cut
    /// back): nothing more is written to it until a snapshot replaces it.
    private(set) var isLogDamaged = false
    /// Why storage refuses changes until the server restarts: a batch of changes
    /// applied in memory could not be written.
    private(set) var refusal: String?
    /// Changes that waited for an fsync that failed, or whose batch write failed: never acknowledged.
    private(set) var lostRevisions: [ClosedRange<Int64>] = []

    /// A machine for storage whose files hold everything up to `revision`, on disk.
    init(policy: FsyncPolicy, revision: Int64, stalledSyncNanoseconds: UInt64 = 2_000_000_000) {
        self.policy = policy
        self.stalledSyncNanoseconds = stalledSyncNanoseconds
        writtenRevision = revision
        syncedRevision = revision
        acknowledgedRevision = revision
    }

    // MARK: Inputs

    /// `write(2)` took a change's records (`revision`), or records without a change
    /// (`nil`: a remembered `requestId` alone). `now` matters only while an fsync
    /// is under way (`isSyncing`), so the shell reads the clock only then.
    /// `writerSyncs`: under `always`, the writer fsyncs next itself (a loop
    /// turn's batch), so the syncer is not woken for it.
    mutating func appended(through revision: Int64?, at now: UInt64, writerSyncs: Bool = false) -> Actions {
        if let revision { writtenRevision = revision }
        switch policy {
        case .always:
            return writerSyncs ? .none : Actions(wakeSyncer: true)
        case .everysec, .none:
            guard revision != nil, !isStalled(at: now) else { return .none }
            return acknowledge(through: writtenRevision)
        }
    }

    /// The syncer (or a writer that syncs its batch) is about to fsync: returns
    /// the revision that fsync will cover, or `nil` when there is nothing to
    /// sync (no new change and no retired log) or another fsync is under way
    /// (which wakes the syncer when it ends, if it left anything uncovered).
    mutating func syncStarting(at now: UInt64, hasRetiredLogs: Bool) -> Int64? {
        guard failure == nil, syncStartedAt == nil, writtenRevision > syncedRevision || hasRetiredLogs else {
            return nil
        }
        syncStartedAt = now
        return writtenRevision
    }

    /// The fsync that `syncStarting` announced completed: everything up to
    /// `revision` is on disk. Under `always`, what was written meanwhile (and
    /// whose writer's own fsync was refused while this one ran) goes to the syncer.
    mutating func synced(through revision: Int64) -> Actions {
        syncStartedAt = nil
        syncedRevision = max(syncedRevision, revision)
        var actions = acknowledge(through: policy == .always ? syncedRevision : writtenRevision)
        actions.wakeSyncer = policy == .always && writtenRevision > syncedRevision
        return actions
    }

    /// The fsync under way failed: storage refuses changes, and the changes waiting
    /// for it (under `always`) are lost.
    mutating func syncFailed(_ reason: String) -> Actions {
        syncStartedAt = nil
        return fail(reason)
    }

    /// The batch of changes `writtenRevision + 1 ... revision`, applied in memory
    /// and buffered, could not be written (the store takes them back): they are
    /// lost, and storage refuses changes until the server restarts.
    mutating func batchWriteFailed(through revision: Int64, _ reason: String) -> Actions {
        if refusal == nil { refusal = reason }
        guard revision > writtenRevision else { return .none }
        let lost = (writtenRevision + 1)...revision
        lostRevisions.append(lost)
        return Actions(lose: lost)
    }

    /// The log's end cannot be trusted (a failed write could not be cut back):
    /// storage refuses changes until a snapshot replaces the log.
    mutating func logDamaged(_ reason: String) -> Actions {
        isLogDamaged = true
        return fail(reason)
    }

    /// A snapshot holding everything up to `revision` is on disk and replaced the
    /// logs before it: that much is synced, and a failure is over.
    mutating func snapshotWritten(through revision: Int64) -> Actions {
        syncedRevision = max(syncedRevision, revision)
        isLogDamaged = false
        guard failure != nil else {
            return policy == .always ? acknowledge(through: syncedRevision) : .none
        }
        failure = nil
        return acknowledge(through: max(revision, writtenRevision))
    }

    /// Storage closed after a last fsync: everything written is acknowledged and
    /// the gate closes, so no waiter is left waiting.
    mutating func closed() -> Actions {
        var actions = acknowledge(through: writtenRevision)
        actions.closeGate = true
        return actions
    }

    // MARK: Questions

    /// Whether storage refuses changes.
    var isFailed: Bool { failure != nil || refusal != nil }

    /// Whether a snapshot must rewrite everything before changes are accepted
    /// again (a failed fsync or a damaged log; a refusal waits for a restart).
    var needsRecovery: Bool { failure != nil }

    /// Whether the store's memory may be written out as a snapshot (compaction,
    /// recovery): not once a batch was taken back, because memory still remembers
    /// the `requestId`s of its lost changes (and would answer a retry as made after
    /// a restart); the log, which a restart reads back, holds none of them.
    var allowsSnapshots: Bool { refusal == nil }

    /// Why storage refuses changes, while it does, with what ends it.
    var refusalReason: String? {
        if let refusal { return refusal + "; changes are refused until the server restarts" }
        return failure.map { $0 + "; retrying every second" }
    }

    /// Whether an fsync is under way.
    var isSyncing: Bool { syncStartedAt != nil }

    /// Whether the syncer sleeps until an append wakes it (`always`, working
    /// storage), rather than waking once a second (`everysec`, or retrying recovery).
    var syncsOnlyWhenWoken: Bool { policy == .always && failure == nil }

    /// Whether the change at `revision` waited for an fsync that failed.
    func isLost(_ revision: Int64) -> Bool {
        lostRevisions.contains { $0.contains(revision) }
    }

    /// The error the writer of a lost change receives instead of its reply.
    var lostChangeError: WireError {
        if let refusal {
            return WireError(
                code: .internalError,
                message: "storage: \(refusal); this change was not made, and changes are refused until the "
                    + "server restarts")
        }
        return WireError(
            code: .internalError,
            message: "storage: \(failure ?? "an fsync failed"); this change may not be on disk and was not "
                + "acknowledged, read the key to see whether it stands")
    }

    // MARK: Rules

    private func isStalled(at now: UInt64) -> Bool {
        guard let syncStartedAt, now > syncStartedAt else { return false }
        return now - syncStartedAt > stalledSyncNanoseconds
    }

    private mutating func acknowledge(through revision: Int64) -> Actions {
        guard revision > acknowledgedRevision else { return .none }
        acknowledgedRevision = revision
        return Actions(acknowledge: revision)
    }

    private mutating func fail(_ reason: String) -> Actions {
        guard failure == nil else { return .none }
        failure = reason
        let waiting = acknowledgedRevision + 1
        guard policy == .always, writtenRevision >= waiting else { return Actions(wakeSyncer: true) }
        let lost = waiting...writtenRevision
        lostRevisions.append(lost)
        return Actions(lose: lost, wakeSyncer: true)
    }
}
