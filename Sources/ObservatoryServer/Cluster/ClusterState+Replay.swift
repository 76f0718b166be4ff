import Dispatch
import Observatory
import ObservatoryEtcd
import ObservatoryWire

// A resume from further back than the cache's history: the changes it no longer
// holds are read back from etcd (docs/protocol.md, "Cluster mode": a client may resume
// on any node from any revision etcd has not compacted away).
extension ClusterState {
    /// What one replay's fetch shares between the watch's thread and its time limit.
    private struct ReplayFetch {
        var replay: ClusterReplay?
        var watch: EtcdWatch?
        /// The time limit, canceled once answered so that it releases the snapshot at once.
        var timeLimit: DispatchWorkItem?
        var isOver = false
    }

    /// Answers a resume of `target` after `resumeRevision` later: reads the
    /// target's entries at that revision and the changes after it up to
    /// `start.revision` (where the observation started, live events follow) from
    /// etcd, off the caller's event loop. Falls back to `start`'s snapshot when
    /// etcd compacted that far, cannot be read, does not answer within the
    /// request timeout, or the changes exceed `replayLimits`. The answer goes into `slot`.
    func replay(_ target: Target, after resumeRevision: Int64, until start: ObservationStart, answering slot: ReplySlot)
    {
        let fetch = Locked(ReplayFetch())
        // Replays `changes`, or answers the snapshot when `nil`; only the first call counts.
        let finish: @Sendable (_ changes: [StoreChange]?, _ why: String) -> Void = { [logger] changes, why in
            let watch = fetch.withLock { fetch -> EtcdWatch?? in
                guard !fetch.isOver else { return nil }
                fetch.isOver = true
                fetch.replay = nil
                fetch.timeLimit.take()?.cancel()
                return .some(fetch.watch.take())
            }
            guard let watch else { return }
            watch?.cancel()
            if let changes { return slot.answer(.replay(changes, through: start.revision)) }
            logger.info("cluster: a resume from revision \(resumeRevision) gets a snapshot: \(why)")
            slot.answer(.snapshot(start.values, at: start.revision))
        }
        let timeout = DispatchTimeInterval.milliseconds(configuration.requestTimeoutMilliseconds)
        let timeLimit = DispatchWorkItem {
            finish(nil, "etcd did not bring its changes within the request timeout")
        }
        fetch.withLock { $0.timeLimit = timeLimit }
        workers.asyncAfter(deadline: .now() + timeout, execute: timeLimit)
        workers.async { [self] in
            let baseline: [RawValueEntry]
            do throws(EtcdError) {
                // Revision 0 is before any change (and etcd would read it as "now").
                baseline =
                    resumeRevision == 0
                    ? []
                    : Self.entries(
                        try client.range(layout.values(of: target), revision: resumeRevision).keyValues, layout)
            } catch {
                return finish(nil, "its state cannot be read from etcd (\(error.message))")
            }
            let replay = ClusterReplay(
                target: target, baseline: baseline, after: resumeRevision, through: start.revision, layout: layout,
                maximumChanges: replayLimits.changes, maximumBytes: replayLimits.bytes)
            guard
                fetch.withLock({
                    $0.replay = replay
                    return !$0.isOver
                })
            else { return }
            let request = EtcdWatchRequest(
                range: layout.everything, startRevision: resumeRevision + 1, previousKeyValues: false)
            let watch = EtcdWatch(client: client, request: request) { update in
                let step: ClusterReplay.Step
                switch update {
                case .events(let events): step = fetch.withLock { $0.replay?.receive(events) } ?? .needsMore
                case .progress(let revision):
                    step = fetch.withLock { $0.replay?.progressed(to: revision) } ?? .needsMore
                case .compacted: return finish(nil, "etcd has compacted those revisions")
                case .canceled(let reason): return finish(nil, "etcd canceled the watch (\(reason))")
                case .created, .interrupted: return
                }
                switch step {
                case .needsMore: break
                case .finished(let changes): finish(changes, "")
                case .overLimit:
                    finish(nil, "the changes to replay exceed limits.historyChanges or limits.historyBytes")
                }
            }
            let isKept = fetch.withLock { fetch in
                guard !fetch.isOver else { return false }
                fetch.watch = watch
                return true
            }
            if !isKept { watch.cancel() }
        }
    }
}
