/// The name of an operation, as sent in a request's `"op"` field.
///
/// Replies do not repeat the op, so a client keeps the kind of each pending
/// request to read the reply's fields (``ReceivedReply/payload(for:)``).
public enum OperationKind: String, Sendable, Hashable, CaseIterable {
    /// `"hello"`: introduce the connection (name, token, protocol version).
    case hello
    /// `"get"`: read one key.
    case get
    /// `"set"`: write one key.
    case set
    /// `"delete"`: remove one key.
    case delete
    /// `"observe"`: snapshot a key or prefix and receive its later changes as events.
    case observe
    /// `"unobserve"`: stop an observation.
    case unobserve
    /// `"list"`: the keys under a prefix with their versions.
    case list
    /// `"ping"`: an empty round trip.
    case ping

    /// All op names, comma separated, for error messages.
    static let allNames = allCases.map(\.rawValue).joined(separator: ", ")
}
