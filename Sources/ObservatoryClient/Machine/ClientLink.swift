/// What the client's machine needs to know of a link: whether it has ended.
/// ``ServerLink`` is the real one; the machine's tests use a stand-in.
protocol ClientLink: AnyObject, Sendable {
    /// Whether the link has ended (its socket is closed or closing).
    var hasEnded: Bool { get }
}
