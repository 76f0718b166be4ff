import Dispatch
import ObservatoryLogging

/// Everything an ``ObservatoryClient`` needs to know: where the servers are, who
/// the client is, and how it keeps the connection alive.
///
///     var configuration = ClientConfiguration(host: "127.0.0.1", port: 7070)
///     configuration.name = "kitchen-panel"
///     configuration.pingInterval = .seconds(2)
///     let client = ObservatoryClient(configuration: configuration)
///
/// Several servers (the nodes of a cluster) are tried in turn:
///
///     let cluster = ClientConfiguration(endpoints: [Endpoint(host: "a", port: 7070), Endpoint(host: "b", port: 7070)])
///
/// Sixteen stored properties, on purpose: each is one setting a user may change,
/// with its default, as `Config/observatory.json` lists the daemon's; grouping
/// them into nested structs would only lengthen every `configuration.x = y`.
public struct ClientConfiguration: Sendable {
    /// The servers to connect to, in order: the client starts with the first and,
    /// whenever a connection fails or breaks, moves on to the next (after the last,
    /// the first again), resuming its mirrors there. An empty list counts as the
    /// default server.
    public var endpoints: [Endpoint] {
        didSet { if endpoints.isEmpty { endpoints = [Endpoint(host: "127.0.0.1", port: 7070)] } }
    }

    /// The first server's host name or address; setting it makes the client use one server.
    public var host: String {
        get { endpoints[0].host }
        set { endpoints = [Endpoint(host: newValue, port: port)] }
    }

    /// The first server's TCP port; setting it makes the client use one server.
    public var port: Int {
        get { endpoints[0].port }
        set { endpoints = [Endpoint(host: host, port: newValue)] }
    }
    /// The author name to say hello with; the server uses `anonymous` without one.
    public var name: String?
    /// The token to authenticate with, when the server has auth on.
    public var token: String?

    /// Whether the client reconnects after the connection fails or breaks. The
    /// command-line tool turns this off so that it fails fast. Without reconnects,
    /// a client of several servers still tries each once before it gives up.
    public var reconnects = true
    /// The waiting time between reconnect attempts.
    public var backoff = ReconnectBackoff()
    /// Numbers in `0..<1` for the backoff's jitter; replace to make tests deterministic.
    public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

    /// How long opening a TCP connection may take. The client's I/O thread waits
    /// for it, so it also bounds how late a `waitUntilSynchronized` timeout may fire.
    public var connectTimeout: Duration = .seconds(5)
    /// How long the server may take no bytes while the client has some to send,
    /// before the connection counts as dead.
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
    /// send. Nil means a serial queue of the client. A concurrent queue is fine:
    /// the client funnels its work through a serial queue that targets it, so
    /// updates of each key stay in version order.
    ///
    /// The default is `.main` on Apple platforms, so that UI code and
    /// `@MainActor` models get their updates on the main actor without a
    /// setting (see `observeOnMainActor(_:_:)`),
    /// and nil elsewhere, where programs rarely run a main queue.
    public var deliveryQueue: DispatchQueue? = DeliveryDefaults.queue
    /// The directory of the offline store; nil (the default) keeps nothing on disk.
    ///
    /// With a directory, the client keeps each mirror's last value (with its
    /// version, author, and the revision and epoch it has seen) and every
    /// unacknowledged mirror write (with its `requestId`) in one file there,
    /// `observatory-client.store`, replaced whole on every save. A mirror made
    /// for a kept key starts with the kept value (or its unacknowledged write),
    /// resumes from the kept revision, and sends the write with its original
    /// request id, so the server applies it once even after a crash.
    public var offlineDirectory: String?
    /// The most bytes the offline store's file may take. When the entries do
    /// not fit, the least recently changed values without a write are left
    /// out first, then the newest writes (which are still sent, just not kept
    /// across a restart); each is reported on ``ObservatoryClient/errors``.
    public var offlineStoreLimit = 1 << 20

    /// Where the client logs; silent by default.
    public var logger: Logger = .silent

    /// Creates a configuration for a server at `host:port`.
    public init(host: String = "127.0.0.1", port: Int = 7070, name: String? = nil, token: String? = nil) {
        self.init(endpoints: [Endpoint(host: host, port: port)], name: name, token: token)
    }

    /// Creates a configuration for several servers, tried in turn (an empty list: the default server).
    public init(endpoints: [Endpoint], name: String? = nil, token: String? = nil) {
        self.endpoints = endpoints.isEmpty ? [Endpoint(host: "127.0.0.1", port: 7070)] : endpoints
        self.name = name
        self.token = token
    }
}
