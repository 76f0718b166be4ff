/// What the client's machine needs to know of a link: whether it has ended, and
/// when it last heard from the server. ``ServerLink`` is the real one; the
/// machine's tests use a stand-in.
protocol ClientLink: AnyObject, Sendable {
    /// Whether the link has ended (its socket is closed or closing).
    var hasEnded: Bool { get }
    /// When the link last received bytes from the server (when it opened, before any).
    var lastReceived: ContinuousClock.Instant { get }
}
