import ObservatoryWire

/// A key's value with the identity of its last change, as `get` returns it.
public struct RemoteEntry: Sendable, Equatable {
    /// The key.
    public let key: String
    /// The current value.
    public let value: JSONValue
    /// The revision of the key's last change.
    public let version: Int64
    /// The session that made the last change.
    public let author: Author

    /// Two entries are equal when they hold the same data and the same `Author` object.
    public static func == (lhs: RemoteEntry, rhs: RemoteEntry) -> Bool {
        lhs.key == rhs.key && lhs.value == rhs.value && lhs.version == rhs.version && lhs.author === rhs.author
    }
}
