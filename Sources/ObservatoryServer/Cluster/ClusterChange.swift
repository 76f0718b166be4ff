import ObservatoryWire

/// A change that etcd has committed, as a node's cache applies it: the key's
/// new entry, or its deletion with the author that deleted it.
enum ClusterChange: Equatable, Sendable {
    /// `entry` is the key's entry from now on (its `version` is the change's revision).
    case set(RawValueEntry)
    /// `key` was deleted at `version` by `author`; `nil` when no author was
    /// recorded, as when etcd deleted a session-bound key with its lease.
    case delete(key: String, version: Int64, author: Author?)
    /// `key` expired and was deleted at `version`, in the name of the write
    /// that set its expiry (a node deleted it at its time: its marker says so).
    case expire(key: String, version: Int64)
    /// `key`'s clock was restarted at etcd revision `revision`: it expires at
    /// `expiry` from now on, and keeps its value, author and version (no change).
    case restart(key: String, revision: Int64, expiry: KeyExpiry)

    /// The key that changed.
    var key: String {
        switch self {
        case .set(let entry): entry.key
        case .delete(let key, _, _), .expire(let key, _), .restart(let key, _, _): key
        }
    }

    /// The revision the change took (a restart: the revision of its put).
    var version: Int64 {
        switch self {
        case .set(let entry): entry.version
        case .delete(_, let version, _), .expire(_, let version), .restart(_, let version, _): version
        }
    }

    /// Equal changes: same kind, key, version, entry, expiry or author (by name and session).
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
        case (.expire(let leftKey, let leftVersion), .expire(let rightKey, let rightVersion)):
            return leftKey == rightKey && leftVersion == rightVersion
        case (.restart(let leftKey, let left, let leftExpiry), .restart(let rightKey, let right, let rightExpiry)):
            return leftKey == rightKey && left == right && leftExpiry == rightExpiry
        default:
            return false
        }
    }
}
