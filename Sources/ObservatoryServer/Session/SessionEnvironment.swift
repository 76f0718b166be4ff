import ObservatoryLogging
import ObservatoryWire
import Synchronization

/// What the sessions of one server share: the state they read and write, who may
/// do what, the session ids, their limits, and whether the server is shutting down.
final class SessionEnvironment: Sendable {
    /// The limits a session applies to what it reads and queues.
    struct Limits: Sendable {
        /// The longest frame a request may be.
        var maxFrameBytes: Int
        /// How much may wait to be sent before a session stops answering.
        var maxQueuedBytes: Int
        /// The most keys one `list` returns.
        var maxListKeys: Int
        /// The limits requests are decoded with (value size, nesting depth).
        var request: RequestLimits

        init(_ limits: ServerLimits) {
            maxFrameBytes = limits.maxFrameBytes
            maxQueuedBytes = limits.maxQueuedBytes
            maxListKeys = limits.maxListKeys
            request = RequestLimits(maxValueBytes: limits.maxValueBytes)
        }
    }

    /// The authoritative state.
    let state: any SharedState
    /// Tokens, anonymous rights and the failed-hello log.
    let authenticator: Authenticator
    /// The session ids.
    let sessionNumbers: SessionNumbers
    let limits: Limits
    let logger: Logger
    /// The counters of `/metrics`.
    let metrics = ServerMetrics()
    private let shuttingDown = Atomic<Bool>(false)

    init(
        state: any SharedState, authenticator: Authenticator, sessionNumbers: SessionNumbers, limits: Limits,
        logger: Logger
    ) {
        self.state = state
        self.authenticator = authenticator
        self.sessionNumbers = sessionNumbers
        self.limits = limits
        self.logger = logger
    }

    /// The environment of the sessions of a server with `configuration`, serving `store`.
    convenience init(configuration: ServerConfiguration, store: SharedStore, logger: Logger) {
        self.init(
            state: store, authenticator: Authenticator(auth: configuration.auth, logger: logger),
            sessionNumbers: SessionNumbers(
                after: store.storage?.sessionReservation ?? 0, storage: store.storage, logger: logger),
            limits: Limits(configuration.limits), logger: logger)
    }

    /// Whether shutdown has begun: requests are then answered with `shutting_down`.
    var isShuttingDown: Bool {
        shuttingDown.load(ordering: .acquiring)
    }

    /// Starts shutdown; returns false if it had already started.
    func beginShutdown() -> Bool {
        !shuttingDown.exchange(true, ordering: .acquiringAndReleasing)
    }
}
