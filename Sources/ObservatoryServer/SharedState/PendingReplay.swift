import Observatory
import ObservatoryWire

/// The answer to a resuming `observe` that the shared state gives later: in
/// cluster mode, once the changes the node's own history no longer holds have
/// been read back from etcd (`resumed:true` and the replay), or, when that
/// cannot be done (compacted, over the caps, too slow), the snapshot taken
/// when the observation started (`resumed:false`).
///
/// The observation itself starts at once, so live events queue up meanwhile;
/// the connection holds them behind this answer (`OutboundQueue`'s pending
/// observation), so they go out after the reply and its replay, in order.
///
/// Thread safety: decided on whatever thread the fetch ends on, read by the
/// connection's loop. The outcome sits in a `Locked` box and is stored before
/// `reply` is fulfilled, so whoever sees `reply` fulfilled finds the changes.
final class PendingReplay: Sendable {
    /// The `observe` reply's fields once decided; the session and the connection
    /// wait on it as on a write's pending reply.
    let reply = PendingReply()
    /// The client's resume point: every event after it is still to be sent.
    let resumeRevision: Int64
    /// What the answer holds once decided: the snapshot's values (none for a
    /// replay) and the changes to replay (none for a snapshot). The values are
    /// kept here as bytes; `reply` carries only the reply's other fields.
    private let answer = Locked<(values: [RawValueEntry], changes: [StoreChange])?>(nil)

    /// An answer still to come for a resume after `resumeRevision`.
    init(after resumeRevision: Int64) {
        self.resumeRevision = resumeRevision
    }

    /// Answers `resumed:true` at `revision`, followed by `changes` (the target's
    /// changes in (`resumeRevision`, `revision`], oldest first, encoded).
    /// Only the first answer counts.
    func fulfill(replaying changes: [StoreChange], through revision: Int64) {
        let isFirst = answer.withLock { answer in
            guard answer == nil else { return false }
            answer = ([], changes)
            return true
        }
        guard isFirst else { return }
        reply.fulfill(.success(.observe(values: [], revision: revision, resumed: true)))
    }

    /// Answers `resumed:false` with the snapshot `values` taken at `revision`.
    /// Only the first answer counts.
    func fulfill(snapshot values: [RawValueEntry], at revision: Int64) {
        let isFirst = answer.withLock { answer in
            guard answer == nil else { return false }
            answer = (values, [])
            return true
        }
        guard isFirst else { return }
        reply.fulfill(.success(.observe(values: [], revision: revision, resumed: false)))
    }

    /// The changes to send right behind the reply (empty for a snapshot, or before the answer).
    var changes: [StoreChange] {
        answer.withLock { $0?.changes ?? [] }
    }

    /// The snapshot's values (empty for a replay, or before the answer).
    var values: [RawValueEntry] {
        answer.withLock { $0?.values ?? [] }
    }
}
