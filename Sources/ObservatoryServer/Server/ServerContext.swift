import ObservatoryWire
import Synchronization

/// What every session of one server shares: the store, the configuration, the
/// logger, the shutdown flag and the session counter.
public final class ServerContext: Sendable {
    /// The shared values.
    public let store: SharedStore
    /// The settings the server runs with.
    public let configuration: ServerConfiguration
    /// Where the server logs.
    public let logger: ServerLogger
    /// The limits used to decode requests (value size, nesting depth).
    let requestLimits: RequestLimits
    private let shuttingDown = Atomic<Bool>(false)
    private let sessionCounter = Atomic<Int>(0)

    /// Creates the shared state of a server with an empty store.
    public init(configuration: ServerConfiguration, logger: ServerLogger = .silent) {
        self.configuration = configuration
        self.logger = logger
        store = SharedStore(maxKeys: configuration.limits.maxKeys)
        requestLimits = RequestLimits(maxValueBytes: configuration.limits.maxValueBytes)
    }

    /// Whether shutdown has begun: requests are then answered with `shutting_down`.
    public var isShuttingDown: Bool {
        shuttingDown.load(ordering: .acquiring)
    }

    /// Starts shutdown; returns false if it had already started.
    func beginShutdown() -> Bool {
        !shuttingDown.exchange(true, ordering: .acquiringAndReleasing)
    }

    /// A new session id: `s1`, `s2`, …
    func nextSessionID() -> String {
        "s\(sessionCounter.add(1, ordering: .relaxed).newValue)"
    }

    /// The token entry for `secret`, if any.
    func accessToken(_ secret: String) -> AccessToken? {
        configuration.tokens.first { $0.token == secret }
    }
}
