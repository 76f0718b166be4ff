import ObservatoryWire

/// What a cluster node's cache does that a daemon's own store never does: take
/// the changes etcd committed, and start over when its watch lost continuity.
extension SharedStore {
    /// Replaces every entry with `entries` at `revision` and forgets the history
    /// (cluster mode's cache, after its watch lost continuity): resumes from before
    /// get a snapshot. Observers are not told; the caller closes their connections.
    /// The revision gate advances to `revision`.
    func reset(to entries: [RawValueEntry], at revision: Int64) {
        let data = StoreState.replica(of: entries, at: revision)
        withStoreLock { guarded in
            guarded.data = data
            guarded.history = ChangeHistory(
                capacity: guarded.history.capacity, byteLimit: guarded.history.byteLimit, after: revision)
            guarded.wakeup += gate.advance(to: revision)
        }
    }

    /// How many keys the store holds and how many of `keys` it does not hold yet,
    /// read in one step: a key applied meanwhile is counted once, never missed
    /// (cluster mode's key budget counts its creates in flight with it).
    func keyCount(missing keys: some Sequence<StoreKey>) -> (held: Int, missing: Int) {
        withWrittenState { guarded in
            (guarded.data.entries.count, keys.count { guarded.data.entry($0.text) == nil })
        }
    }

    /// Applies changes etcd committed, in revision order, and announces them; then
    /// takes `revision` as the last one (cluster mode's cache, fed by its watch).
    ///
    /// The revision gate advances to `revision` only after the changes were sent
    /// to their observers' connections (the watch's thread is the cache's only
    /// writer, so it sends its own changes once the lock is released): a write's
    /// reply waits on the gate, and the writer's next request (a `ping`) must find
    /// the write's event already queued for it. Connections hold those events
    /// until the gate reaches them, and are woken then.
    ///
    /// `times` gives each revision's `at` as its envelopes carry it; a change
    /// without one (a key etcd deleted with its lease) takes this node's clock.
    ///
    /// - Returns: how many of the changes were expired deletes (for `observatory_expired_total`).
    @discardableResult
    func replicate(_ changes: [ClusterChange], through revision: Int64, times: [Int64: Int64] = [:]) -> Int {
        var expired = 0
        defer { gate.advance(to: revision).run() }
        withStoreLock { guarded in
            for replicated in changes {
                guard let planned = guarded.data.planReplicated(replicated, at: times[replicated.version]) else {
                    continue
                }
                let (change, _) = guarded.data.apply(planned)
                if let change {
                    if case .delete(_, _, _, _, _, let reason) = change.event, reason == RawEvent.expired {
                        expired += 1
                    }
                    // The watch is continuous: revisions between changes of the prefix are not its.
                    guarded.history.skip(through: change.version - 1)
                    publish(change, from: Author(name: change.author, session: change.session), in: &guarded)
                }
            }
            guarded.data.advanceRevision(to: revision)
            guarded.history.skip(through: revision)
        }
        return expired
    }
}
