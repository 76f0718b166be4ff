/// A watch's progress as pure logic: where to resume after a broken stream, and
/// which messages become what update, so that no event is lost or repeated.
///
/// The watch feeds it every message of every stream, and asks it where the next
/// stream starts. Events at or below the last revision delivered are dropped: a
/// stream restarted from an older point (or a member that is behind) sends
/// them again. etcd never splits one revision's events across messages (unless
/// asked to fragment, which this client does not), so revisions are the unit.
public struct EtcdWatchState: Hashable, Sendable {
    /// What a message means for the watch's consumer.
    public enum Update: Hashable, Sendable {
        /// A stream was created when the store was at `revision`.
        case created(revision: Int64)
        /// New events, in revision order, none seen before.
        case events([EtcdWatchEvent])
        /// Everything up to `revision` has been delivered.
        case progress(revision: Int64)
        /// The start revision is compacted: etcd keeps nothing older than
        /// `compactRevision`. The watch has ended; reload, then watch again.
        case compacted(compactRevision: Int64)
        /// etcd ended the watch for `reason`; the watch has ended.
        case canceled(reason: String)
    }

    /// The revision the watch asked to start from (0: from its creation on).
    public let startRevision: Int64
    /// The last revision whose events were all delivered (or announced by a
    /// progress notification); 0 until known.
    public private(set) var lastRevision: Int64
    /// Whether etcd ended the watch (compaction or cancellation): no stream follows.
    public private(set) var isFinished = false

    /// Starts at `startRevision` (0: from the first stream's creation on).
    public init(startRevision: Int64) {
        self.startRevision = startRevision
        self.lastRevision = max(startRevision - 1, 0)
    }

    /// The revision the next stream starts from: one past the last delivered,
    /// or the requested start while nothing is known (0: from now).
    public var resumeRevision: Int64 {
        lastRevision > 0 ? lastRevision + 1 : startRevision
    }

    /// Takes one message of the current stream and says what it means, if anything.
    public mutating func receive(_ response: EtcdWatchResponse) -> Update? {
        guard !isFinished else { return nil }
        if response.canceled {
            isFinished = true
            if response.compactRevision > 0 { return .compacted(compactRevision: response.compactRevision) }
            let reason = response.cancelReason.isEmpty ? "etcd canceled the watch" : response.cancelReason
            return .canceled(reason: reason)
        }
        if response.created {
            // A watch "from now" learns what now is: its first stream's revision.
            // (A watch from revision 1 also has nothing delivered yet, but
            // events from 1 on are still to come: it must not skip them.)
            if startRevision == 0 && lastRevision == 0 { lastRevision = response.header.revision }
            return .created(revision: response.header.revision)
        }
        if response.events.isEmpty {
            // Progress: every event up to the header's revision has been sent.
            guard response.header.revision > lastRevision else { return nil }
            lastRevision = response.header.revision
            return .progress(revision: lastRevision)
        }
        let fresh = response.events.filter { $0.revision > lastRevision }
        guard let newest = fresh.last?.revision else { return nil }
        lastRevision = newest
        return .events(fresh)
    }
}
