/// The numbers the client's machine decides by: how long each phase of a
/// connection may take, when to ping, whether and how soon to reconnect.
///
/// A plain value taken from the ``ClientConfiguration``; the machine's tests
/// make their own.
struct ConnectionPolicy: Sendable {
    /// Whether the client connects again after a connection fails or breaks.
    var reconnects = true
    /// The wait before each reconnect attempt.
    var backoff = ReconnectBackoff()
    /// Numbers in `0..<1` for the backoff's jitter.
    var random: @Sendable () -> Double = { Double.random(in: 0..<1) }
    /// How long opening the TCP connection may take.
    var connectTimeout: Duration = .seconds(5)
    /// After this long without a frame from the server, a synchronized link is pinged.
    var pingInterval: Duration = .seconds(5)
    /// How long the server may leave hello, a resync or a ping without an answer.
    var pingTimeout: Duration = .seconds(10)

    /// The defaults of ``ClientConfiguration``.
    init() {}

    /// The policy of `configuration`.
    init(_ configuration: ClientConfiguration) {
        reconnects = configuration.reconnects
        backoff = configuration.backoff
        random = configuration.random
        connectTimeout = configuration.connectTimeout
        pingInterval = configuration.pingInterval
        pingTimeout = configuration.pingTimeout
    }

    /// How long the I/O thread may wait between two looks at the deadlines: a
    /// fraction of the shortest, so that none is overrun by much.
    var tickInterval: Duration {
        max(min(pingInterval, pingTimeout, connectTimeout) / 4, .milliseconds(5))
    }
}
