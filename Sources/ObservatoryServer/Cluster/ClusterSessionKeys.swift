import Dispatch
import Observatory
import ObservatoryEtcd
import ObservatoryLogging

/// The session-bound keys of a node's sessions: all attached to one lease of
/// the node, which the node's one `EtcdLeaseKeeper` keeps alive, and deleted
/// one by one when their session ends.
///
/// One lease per node rather than one per session, because a node then renews
/// one lease every third of `sessionTTLSeconds` on one thread, whatever its
/// number of sessions; a lease per session cost a renewal per session (3,000
/// requests a second for 10,000 sessions at the default 10 s), which one thread
/// cannot carry. The guarantees stay:
/// - **A session's keys go when it ends.** Each key is deleted by a transaction
///   that compares its revision with the one the session last wrote it at, so
///   a key written since (by anyone) stays. The delete writes no deletion
///   marker, so every node's watch announces it as `session_ended`, as it did a
///   revoked lease's deletions. A deletion that fails is tried again every
///   second until it succeeds or the node closes.
/// - **A node that dies takes its sessions' keys with it** within
///   `sessionTTLSeconds`: nothing renews its lease, which then expires. A node
///   that stops cleanly revokes it (`close()`), after its sessions ended.
/// - **A lost lease** (etcd unreachable for its whole time to live) took its keys
///   with it, as a session's lost lease did; the next session-bound write grants
///   a new lease.
///
/// Thread safety: the current lease and each session's keys are in a `Locked`
/// box, held only to read or change them, never across a request to etcd.
final class ClusterSessionKeys: Sendable {
    private struct State {
        /// The lease new session-bound keys are attached to; `nil` after it was lost.
        var lease: Int64?
        /// Every lease granted, to revoke when the node closes.
        var granted: Set<Int64>
        /// Per session, its session-bound keys and the revision it last wrote each at.
        var held: [String: [String: Int64]] = [:]
        var isClosed = false
    }

    private let state: Locked<State>
    private let client: EtcdClient
    private let layout: ClusterKeyLayout
    private let keeper: EtcdLeaseKeeper
    private let timeToLive: Int64
    private let logger: Logger
    /// Where failed deletions are tried again.
    private let retries: DispatchQueue

    /// Keys attached to `nodeLease` (just granted, kept alive by `keeper`
    /// from now on), a new lease of `timeToLive` seconds after a loss.
    init(
        nodeLease: EtcdLease, client: EtcdClient, layout: ClusterKeyLayout, keeper: EtcdLeaseKeeper,
        timeToLive: Int64, logger: Logger, retries: DispatchQueue
    ) {
        state = Locked(State(lease: nodeLease.id, granted: [nodeLease.id]))
        self.client = client
        self.layout = layout
        self.keeper = keeper
        self.timeToLive = timeToLive
        self.logger = logger
        self.retries = retries
        keep(nodeLease)
    }

    /// The lease to attach a session-bound key to now, granted when the last one was lost.
    func lease() throws(EtcdError) -> Int64 {
        if let lease = state.withLock({ $0.lease }) { return lease }
        let granted = try client.grantLease(ttl: timeToLive)
        let lease = state.withLock { state in
            state.granted.insert(granted.id)
            if state.lease == nil { state.lease = granted.id }
            return state.lease ?? granted.id
        }
        // Another write granted one first: this one lives on unused until it expires or the node closes.
        if lease == granted.id { keep(granted) }
        return lease
    }

    /// Notes that `session` wrote its session-bound `key` at `revision`.
    func hold(_ key: String, at revision: Int64, by session: String) {
        state.withLock { $0.held[session, default: [:]][key] = revision }
    }

    /// Deletes `session`'s keys that are still as it last wrote them; blocks
    /// while etcd answers. Called once the session's writes are done.
    func end(_ session: String) {
        guard let keys = state.withLock({ $0.held.removeValue(forKey: session) }) else { return }
        delete(keys, of: session)
    }

    /// Revokes every lease granted (`end` deleted the sessions' keys before):
    /// whatever is still attached goes now. The keeper was stopped before.
    func close() {
        let granted = state.withLock { state in
            state.isClosed = true
            return state.granted
        }
        for lease in granted { try? client.revokeLease(lease) }
    }

    /// Stops trying failed deletions again, as a node that died: its lease expires.
    func abandon() {
        state.withLock { $0.isClosed = true }
    }

    private func keep(_ lease: EtcdLease) {
        keeper.keep(lease) { [state, logger] error in
            logger.error("cluster: this node's lease was lost (\(error.message)); its sessions' keys are gone")
            state.withLock { state in
                if state.lease == lease.id { state.lease = nil }
                state.granted.remove(lease.id)
            }
        }
    }

    /// Deletes each of `keys` if it is still at the revision given; tries the
    /// ones that failed again a second later.
    private func delete(_ keys: [String: Int64], of session: String) {
        var failed: [String: Int64] = [:]
        var lastError: EtcdError?
        for (key, revision) in keys {
            let valueKey = layout.valueKey(key)
            let deletion = EtcdTransaction(
                compares: [.unchanged(valueKey, since: revision)], success: [.deleteRange(.key(valueKey))])
            do throws(EtcdError) {
                _ = try client.transaction(deletion)
            } catch {
                failed[key] = revision
                lastError = error
            }
        }
        guard let lastError, !state.withLock({ $0.isClosed }) else { return }
        logger.error(
            "cluster: \(CountedNoun.text(failed.count, "key")) of session \(session) could not be deleted "
                + "(\(lastError.message)); trying again in a second")
        let again = failed
        retries.asyncAfter(deadline: .now() + .seconds(1)) { [self] in
            guard !state.withLock({ $0.isClosed }) else { return }
            delete(again, of: session)
        }
    }
}
