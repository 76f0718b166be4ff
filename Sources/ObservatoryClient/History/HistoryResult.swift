/// What ``ObservatoryClient/history(_:as:)`` returns: one page of held changes
/// with what the server said about the range.
public struct HistoryResult<Value: Decodable & Sendable>: Sendable {
    /// The changes, in the order asked for.
    public let entries: [HistoryEntry<Value>]
    /// Whether more matching changes lie beyond the last one: ask again from its version.
    public let more: Bool
    /// The server's last revision when it answered.
    public let revision: Int64
    /// Every change above this revision is held by the server, none at or below
    /// it: a range reaching below it may be incomplete.
    public let horizon: Int64
}
