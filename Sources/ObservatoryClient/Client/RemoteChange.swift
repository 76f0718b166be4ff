import ObservatoryWire

/// One change of a remote key, as delivered by ``ObservatoryClient/changes(of:slow:)``.
public struct RemoteChange: Sendable, Equatable {
    /// The key that changed.
    public let key: String
    /// The value before the change; nil when the key was just created.
    public let old: JSONValue?
    /// The value after the change; nil when the key was deleted.
    public let new: JSONValue?
    /// The revision of the change.
    public let version: Int64
    /// The session that made the change.
    public let author: Author
    /// The server's event, as it came (for printing raw frames).
    public let event: Event

    /// Two changes are equal when they are the same event from the same `Author` object.
    public static func == (lhs: RemoteChange, rhs: RemoteChange) -> Bool {
        lhs.event == rhs.event && lhs.author === rhs.author
    }
}
