import ObservatoryWire

/// A change that etcd has committed, as a node's cache applies it: the key's
/// new entry, or its deletion with the author that deleted it.
enum ClusterChange: Equatable, Sendable {
    /// `entry` is the key's entry from now on (its `version` is the change's revision).
    case set(RawValueEntry)
    /// `key` was deleted at `version` by `author`; `nil` when no author was
    /// recorded, as when etcd deleted a session-bound key with its lease.
    case delete(key: String, version: Int64, author: Author?)

    /// The key that changed.
    var key: String {
        switch self {
        case .set(let entry): entry.key
        case .delete(let key, _, _): key
        }
    }

    /// The revision the change took.
    var version: Int64 {
        switch self {
        case .set(let entry): entry.version
        case .delete(_, let version, _): version
        }
    }

    /// Equal changes: same kind, key, version, entry or author (by name and session).
    static func == (lhs: ClusterChange, rhs: ClusterChange) -> Bool {
        switch (lhs, rhs) {
        case (.set(let left), .set(let right)):
            return left == right
        case (
            .delete(let leftKey, let leftVersion, let leftAuthor),
            .delete(let rightKey, let rightVersion, let rightAuthor)
        ):
            return leftKey == rightKey && leftVersion == rightVersion
                && leftAuthor?.name == rightAuthor?.name && leftAuthor?.session == rightAuthor?.session
        default:
            return false
        }
    }
}
