import ObservatoryWire

/// What a mirror knows about its key besides the value: the version and author
/// of the server's value it holds, whether a local write still waits for the
/// server, and whether the value may be stale.
///
/// ``ObservatoryClient/status(of:)`` hands out a mirror's status as a `Var`,
/// which changes on the delivery queue after the mirror's value. Observe it as
/// any `Var`, or read its `value` in a SwiftUI view (or inside
/// `withObservationTracking`) to follow it through the Observation framework:
///
/// ```swift
/// let door = client.variable("door.locked", default: false)
/// if let status = client.status(of: door) {
///     print(status.value.hasUnacknowledgedWrite ? "saving…" : "saved at version \(status.value.version)")
/// }
/// ```
public struct MirrorStatus: Sendable, Equatable, CustomStringConvertible {
    /// The version of the server's value the mirror holds: the revision of the
    /// key's last change; 0 before the first snapshot and while the key does not
    /// exist.
    public var version: Int64
    /// The author of the server's value the mirror holds (this client's own
    /// ``ObservatoryClient/localAuthor`` once the server acknowledged a write of
    /// the mirror); nil before the first snapshot, and when no session made
    /// the value the mirror shows (a key a resync found missing, a reset).
    public var author: Author?
    /// Whether a local write has not been acknowledged by the server yet: it
    /// waits to be sent (while disconnected) or its reply has not come. The
    /// mirror's `Var` then shows the local value, not the server's.
    public var hasUnacknowledgedWrite: Bool
    /// Whether the value may be stale: the mirror has not heard from the server
    /// on the current connection, because the client is not connected or the
    /// key's snapshot is still on the way.
    public var mayBeStale: Bool

    /// A status; mirrors make their own, programs read them.
    public init(version: Int64, author: Author?, hasUnacknowledgedWrite: Bool, mayBeStale: Bool) {
        self.version = version
        self.author = author
        self.hasUnacknowledgedWrite = hasUnacknowledgedWrite
        self.mayBeStale = mayBeStale
    }

    /// A new mirror's status: nothing heard from the server, nothing written.
    static let initial = MirrorStatus(version: 0, author: nil, hasUnacknowledgedWrite: false, mayBeStale: true)

    /// Statuses are equal when their fields are, the authors being the same object.
    public static func == (lhs: MirrorStatus, rhs: MirrorStatus) -> Bool {
        lhs.version == rhs.version && lhs.author === rhs.author
            && lhs.hasUnacknowledgedWrite == rhs.hasUnacknowledgedWrite
            && lhs.mayBeStale == rhs.mayBeStale
    }

    /// `version 12 by alice (s3), unacknowledged write, may be stale`, for logs.
    public var description: String {
        var parts = ["version \(version)" + (author.map { " by \($0)" } ?? "")]
        if hasUnacknowledgedWrite { parts.append("unacknowledged write") }
        if mayBeStale { parts.append("may be stale") }
        return parts.joined(separator: ", ")
    }
}
