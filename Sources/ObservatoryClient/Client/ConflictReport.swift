import ObservatoryWire

/// A conflict report: the changes by others that one of this client's queued
/// mirror writes replaced, or that replaced it, so an app can say so ("your
/// change to door.locked replaced alice's").
///
/// A mirror write made while others change the same key (offline, or just
/// before their change reaches this client) is queued or in flight while
/// those changes arrive; the mirror records them without showing them. When
/// the write is acknowledged, the changes below its version are the ones it
/// replaced, and the client sends one report on
/// ``ObservatoryClient/conflicts``. With ``ConflictPolicy/serverWins`` a write
/// still waiting to be sent is dropped instead, the mirror shows the server's
/// value, and the report says so.
///
///     observer.observe(client.conflicts) { report in
///         for change in report.replaced {
///             print("your change to \(report.key) replaced \(change.author.name)'s (version \(change.version))")
///         }
///     }
public struct ConflictReport: Sendable, Equatable {
    /// One change by another session that the write met.
    public struct Change: Sendable, Equatable {
        /// The value before the change, as this client knew it; nil when the
        /// key did not exist (or the value was not known).
        public let old: JSONValue?
        /// The value the change set; nil for a delete.
        public let new: JSONValue?
        /// The revision of the change.
        public let version: Int64
        /// Who made the change.
        public let author: Author

        /// Two changes are equal when their values, versions and `Author` objects are.
        public static func == (lhs: Change, rhs: Change) -> Bool {
            lhs.old == rhs.old && lhs.new == rhs.new && lhs.version == rhs.version && lhs.author === rhs.author
        }
    }

    /// How the conflict ended.
    public enum Resolution: Sendable, Equatable {
        /// The write was applied at `version`, after the changes: it replaced them.
        case localWrite(version: Int64)
        /// The mirror's policy was ``ConflictPolicy/serverWins``: the write was
        /// dropped unsent, and the mirror shows the server's value.
        case serverValue
    }

    /// The key.
    public let key: String
    /// The value this client wrote.
    public let written: JSONValue
    /// The changes the client had not seen when it wrote, oldest first.
    public let replaced: [Change]
    /// Whether the write or the server's value won.
    public let resolution: Resolution
}
