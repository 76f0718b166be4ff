import ObservatoryJSON

/// What a watch watches: a range of keys, from a revision, with which extras.
public struct EtcdWatchRequest: Hashable, Sendable {
    /// The keys watched.
    public var range: EtcdKeyRange
    /// The first revision to report (0: changes from now on). To follow a read,
    /// pass the read's revision + 1, so that no change is missed in between.
    public var startRevision: Int64
    /// Whether events carry the key as it was before the change.
    public var previousKeyValues: Bool
    /// Whether etcd sends progress notifications while nothing changes, so the
    /// watcher learns the current revision.
    public var progressNotify: Bool

    /// Creates a watch request; by default with previous values and progress notifications.
    public init(
        range: EtcdKeyRange, startRevision: Int64 = 0, previousKeyValues: Bool = true, progressNotify: Bool = true
    ) {
        self.range = range
        self.startRevision = startRevision
        self.previousKeyValues = previousKeyValues
        self.progressNotify = progressNotify
    }

    /// The stream's one message, `{"create_request": …}`, starting at `startRevision`
    /// (the resume point after a break, not necessarily the first one).
    func createRequestObject(startRevision: Int64) -> EtcdJSON.Object {
        let create = EtcdJSON.object(
            range.members + [
                ("start_revision", startRevision != 0 ? EtcdJSON.text(startRevision) : nil),
                ("prev_kv", previousKeyValues ? true : nil), ("progress_notify", progressNotify ? true : nil),
            ])
        return ["create_request": .object(create)]
    }
}
