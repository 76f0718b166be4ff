/// What the server answered to a `set`.
public struct WriteResult: Sendable, Equatable {
    /// The key's version after the request: the new revision, or the current
    /// version when the value was already equal.
    public let version: Int64
    /// False when the key already held the value: nothing changed, no event was sent.
    public let changed: Bool
}
