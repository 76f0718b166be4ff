import Dispatch
import ObservatoryLogging

/// Everything an ``ObservatoryClient`` needs to know: where the server is, who
/// the client is, and how it keeps the connection alive.
///
///     var configuration = ClientConfiguration(host: "127.0.0.1", port: 7070)
///     configuration.name = "kitchen-panel"
///     configuration.pingInterval = .seconds(2)
///     let client = ObservatoryClient(configuration: configuration)
///
/// Fifteen stored properties, on purpose: each is one setting a user may change,
/// with its default, as `Config/observatory.json` lists the daemon's; grouping
/// them into nested structs would only lengthen every `configuration.x = y`.
public struct ClientConfiguration: Sendable {
    /// The server's host name or address.
    public var host: String
    /// The server's TCP port.
    public var port: Int
    /// The author name to say hello with; the server uses `anonymous` without one.
    public var name: String?
    /// The token to authenticate with, when the server has auth on.
    public var token: String?

    /// Whether the client reconnects after the connection fails or breaks. The
    /// command-line tool turns this off so that it fails fast.
    public var reconnects = true
    /// The waiting time between reconnect attempts.
    public var backoff = ReconnectBackoff()
    /// Numbers in `0..<1` for the backoff's jitter; replace to make tests deterministic.
    public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

    /// How long opening a TCP connection may take.
    public var connectTimeout: Duration = .seconds(5)
    /// How long one blocking write may take before the connection counts as dead.
    public var sendTimeout: Duration = .seconds(10)
    /// After this long without any frame from the server, the client sends a ping.
    public var pingInterval: Duration = .seconds(5)
    /// A ping without reply for this long means the connection is dead (a
    /// half-open TCP connection, say); the client drops it and reconnects.
    public var pingTimeout: Duration = .seconds(10)

    /// How long a write whose reply a broken connection took waits for the
    /// reconnect before it is sent again; past it, the write fails with the
    /// error of the wait (``ClientError/timedOut(_:)``).
    public var writeRetryTimeout: Duration = .seconds(10)

    /// The longest frame the client accepts from the server. Larger than the
    /// server's own request limit, because one `observe` reply carries the
    /// values of every key under a prefix. A longer frame ends the connection.
    public var maxFrameBytes = 64 << 20

    /// The queue on which mirrors receive remote updates, and on which
    /// ``ObservatoryClient/connectionState`` and ``ObservatoryClient/errors``
    /// send. Nil (the default) means a serial queue of the client. A concurrent
    /// queue is fine: the client funnels its work through a serial queue that
    /// targets it, so updates of each key stay in version order.
    public var deliveryQueue: DispatchQueue?
    /// Where the client logs; silent by default.
    public var logger: Logger = .silent

    /// Creates a configuration for a server at `host:port`.
    public init(host: String = "127.0.0.1", port: Int = 7070, name: String? = nil, token: String? = nil) {
        self.host = host
        self.port = port
        self.name = name
        self.token = token
    }
}
