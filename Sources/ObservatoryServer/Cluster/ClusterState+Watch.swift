import Dispatch
import Foundation
import Observatory
import ObservatoryEtcd
import ObservatoryWire

// The watch that feeds a node's cache: the first read of the prefix, the watch
// from there, what it reports, and the reload after it lost continuity.
extension ClusterState {
    /// The values under the prefix and the revision they were read at.
    static func read(_ client: EtcdClient, _ layout: ClusterKeyLayout) throws(EtcdError) -> (
        [RawValueEntry], Int64
    ) {
        let read = try client.range(layout.values)
        return (entries(read.keyValues, layout), read.header.revision)
    }

    /// The entries `keyValues` (a read of the values) hold.
    static func entries(_ keyValues: [EtcdKeyValue], _ layout: ClusterKeyLayout) -> [RawValueEntry] {
        keyValues.compactMap { stored -> RawValueEntry? in
            guard case .value(let key) = layout.kind(of: stored.key) else { return nil }
            return ClusterEnvelope.decode(stored.value)?.entry(key: key, version: stored.modRevision)
        }
    }

    /// The values under the prefix at the earliest revision after `revision`
    /// that etcd still holds (not compacted away), and that revision; the current
    /// values when etcd holds none of those or `revision` is not in the past.
    static func read(
        _ client: EtcdClient, _ layout: ClusterKeyLayout, earliestAfter revision: Int64
    ) throws(EtcdError) -> ([RawValueEntry], Int64) {
        let earliest = max(1, revision + 1)
        do throws(EtcdError) {
            let read = try client.range(layout.values, revision: earliest)
            return (entries(read.keyValues, layout), min(earliest, read.header.revision))
        } catch {
            guard error.code == .compacted else { throw error }
            return try Self.read(client, layout)
        }
    }

    /// Waits until the watch has applied `revision`, for at most the request
    /// timeout (a node that starts behind catches up before it serves).
    func catchUp(to revision: Int64) {
        let caughtUp = DispatchSemaphore(value: 0)
        gate.wait(for: revision) { caughtUp.signal() }
        let patience = DispatchTimeInterval.milliseconds(configuration.requestTimeoutMilliseconds)
        if caughtUp.wait(timeout: .now() + patience) == .timedOut {
            logger.warning("cluster: the watch has not replayed etcd's history up to \(revision) yet; serving")
        }
    }

    /// Starts the watch of the prefix after `revision`, unless the state is closed.
    ///
    /// Without previous values: the cache holds what a change replaces, and etcd
    /// reads a previous value for each event one at a time before it sends them,
    /// which made the 10,000 deletes of a lease that ended arrive seconds late.
    func startWatch(after revision: Int64) {
        let request = EtcdWatchRequest(
            range: layout.everything, startRevision: revision + 1, previousKeyValues: false)
        let started = EtcdWatch(client: client, request: request) { [weak self] update in
            self?.handle(update)
        }
        let isStarted = watch.withLock { watch in
            guard !watch.isClosed else { return false }
            watch.current = started
            return true
        }
        if !isStarted { started.cancel() }
    }

    /// After the watch ended (compacted past, canceled): reads the state again,
    /// puts it in the cache, watches from there, and has the server close its
    /// observers so they resume or start over. While etcd does not answer, tries
    /// again after `pause` (doubled each time, up to 2 s) on `workers`, holding
    /// no thread meanwhile, until the state closes.
    private func reload(pause: Duration = .milliseconds(100)) {
        let ended = watch.withLock { $0.current.take() }
        ended?.cancel()
        guard !watch.withLock({ $0.isClosed }) else { return }
        do throws(EtcdError) {
            let (entries, revision) = try Self.read(client, layout)
            // Read after the values: the new watch replays what changed since.
            let markers = Self.deletionMarkers(try client.range(layout.deletions), layout)
            deletionMarkers.withLock { $0 = markers }
            cache.reset(to: entries, at: revision)
            startWatch(after: revision)
            logger.warning(
                "cluster: reloaded \(CountedNoun.text(entries.count, "key")) at revision \(revision); observers must resume"
            )
            viewLostHandler.withLock { $0 }?(revision)
        } catch {
            logger.warning("cluster: cannot reload the state from etcd (\(error.message)); trying again")
            let next = min(pause * 2, .seconds(2))
            workers.asyncAfter(deadline: .now() + .milliseconds(Int(pause / .milliseconds(1)))) { [weak self] in
                self?.reload(pause: next)
            }
        }
    }

    /// The keys whose deletion markers `read` (of `layout.deletions`) holds.
    static func deletionMarkers(_ read: EtcdRangeResult, _ layout: ClusterKeyLayout) -> Set<String> {
        Set(
            read.keyValues.compactMap { stored in
                guard case .deletion(let key) = layout.kind(of: stored.key) else { return nil }
                return key
            })
    }

    /// Notes the deletion markers `events` put and delete, in order.
    private func trackDeletionMarkers(_ events: [EtcdWatchEvent]) {
        let markers = events.compactMap { event -> (key: String, put: Bool)? in
            guard case .deletion(let key) = layout.kind(of: event.keyValue.key) else { return nil }
            return (key, event.kind == .put)
        }
        guard !markers.isEmpty else { return }
        deletionMarkers.withLock { known in
            for marker in markers {
                if marker.put { known.insert(marker.key) } else { known.remove(marker.key) }
            }
        }
    }

    /// Applies what the watch reports to the cache; on the watch's thread.
    func handle(_ update: EtcdWatch.Update) {
        switch update {
        case .events(let events):
            guard let last = events.last?.revision else { return }
            trackDeletionMarkers(events)
            let changes = ClusterEventMapper.changes(from: events, layout: layout)
            trackRestartedRevisions(changes)
            let expired = cache.replicate(
                changes, through: last, times: ClusterEventMapper.times(from: events, layout: layout))
            if expired > 0 { expiredSeen.withLock { $0 += expired } }
        case .progress(let revision):
            cache.replicate([], through: revision)
        case .created:
            break
        case .interrupted(let error):
            logger.warning("cluster: the etcd watch broke (\(error.message)); resuming")
        case .compacted(let compactRevision):
            logger.error("cluster: the etcd watch was compacted past (at \(compactRevision)); reloading")
            workers.async { [weak self] in self?.reload() }
        case .canceled(let reason):
            logger.error("cluster: etcd canceled the watch (\(reason)); reloading")
            workers.async { [weak self] in self?.reload() }
        }
    }
}
