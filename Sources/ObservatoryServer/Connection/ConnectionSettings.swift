/// What a connection takes from the server's configuration: its time limits and
/// the limits of its output.
struct ConnectionSettings: Sendable {
    /// The deadlines of its `ConnectionMachine`.
    let timing: ConnectionMachine.Timing
    /// How long a client has for a successful `hello` (for the error that closes it).
    let authTimeoutMilliseconds: Int
    /// How many bytes may wait to be sent before the client counts as slow.
    let maxQueuedBytes: Int
    /// How many keys and prefixes one session may observe.
    let maxObservations: Int

    /// How long a closing connection waits for its client to take more of what is
    /// queued: its last replies after it hung up its sending side, the error that
    /// ends it, or the events ahead of a `slow_consumer` error. A client that paused
    /// for a moment must not lose them; one that is gone costs only a socket and
    /// a few bytes meanwhile. A shutdown waits its grace time instead.
    static let closingPatienceMilliseconds = 30_000

    init(_ configuration: ServerConfiguration) {
        let millisecond: UInt64 = 1_000_000
        let grace = UInt64(max(100, configuration.shutdownGraceMilliseconds)) * millisecond
        let needsAuthentication =
            configuration.requiresAuthentication && configuration.auth.anonymous == nil
            && configuration.authTimeoutMilliseconds > 0
        timing = ConnectionMachine.Timing(
            authentication: needsAuthentication ? UInt64(configuration.authTimeoutMilliseconds) * millisecond : nil,
            idle: configuration.idleTimeoutMilliseconds > 0
                ? UInt64(configuration.idleTimeoutMilliseconds) * millisecond : nil,
            closingPatience: UInt64(Self.closingPatienceMilliseconds) * millisecond,
            shutdownGrace: grace,
            linger: grace)
        authTimeoutMilliseconds = configuration.authTimeoutMilliseconds
        maxQueuedBytes = configuration.limits.maxQueuedBytes
        maxObservations = configuration.limits.maxObservationsPerConnection
    }
}
