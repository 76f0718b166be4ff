import ObservatoryWire

/// What starting an observation found: a snapshot of its target, or the changes
/// to replay after a resume point.
public struct ObservationStart: Sendable {
    /// The current entries (empty when `replay` is set).
    public var values: [RawValueEntry]
    /// The last revision when the snapshot was taken or the replay ends.
    public var revision: Int64
    /// The target's changes after the resume point, oldest first, when the
    /// state could resume; `nil` for a snapshot.
    public var replay: [StoreChange]?
    /// Set when the state answers later (a cluster node reading the changes
    /// its own history no longer holds back from etcd): the observation has
    /// started, `values` and `revision` are the snapshot it falls back to, and
    /// the reply and its replay are answered into this slot.
    var pending: ReplySlot? = nil
}
