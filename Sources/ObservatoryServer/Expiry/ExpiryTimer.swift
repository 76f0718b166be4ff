import ObservatoryLogging
import ObservatoryWire

/// Deletes expiring keys on time, from a timer on an event loop: no thread of
/// its own (docs/protocol.md, "Expiring keys").
///
/// Every `intervalNanoseconds` it asks the shared state to expire what is due,
/// at most `sliceKeys` keys per turn of the loop; when a slice was full it looks
/// again on the next turn, so thousands of keys expiring in the same second go
/// in slices, with the loop's connections served between them. The timer is
/// confined to its loop's thread, as every timer is.
final class ExpiryTimer: Sendable {
    /// How often the timer looks for keys that are due: a key goes at most this
    /// much (plus the slices before it) after its deadline.
    static let intervalNanoseconds: UInt64 = 50_000_000
    /// The most keys one turn of the loop expires.
    static let sliceKeys = 500

    private let loop: EventLoop
    private let state: any SharedState
    private let metrics: ServerMetrics
    private let logger: Logger

    init(loop: EventLoop, state: any SharedState, metrics: ServerMetrics, logger: Logger) {
        self.loop = loop
        self.state = state
        self.metrics = metrics
        self.logger = logger
    }

    /// Starts looking, from the loop's thread or any other.
    func start() {
        loop.execute { [self] in fire() }
    }

    /// Expires one slice and schedules the next look: at once when the slice
    /// was full, else after the interval. Stops for good when storage refuses
    /// (the keys go at the next start, as the logged error says).
    private func fire() {
        let outcome = state.expireDue(now: KeyExpiry.wallMilliseconds(), limit: Self.sliceKeys)
        metrics.expired.add(outcome.expired)
        metrics.changes.add(outcome.expired)
        if let failure = outcome.failure {
            logger.error("expiring keys could not be deleted (\(failure.message)); the next start deletes them")
            return
        }
        let delay = outcome.expired == Self.sliceKeys ? 0 : Self.intervalNanoseconds
        loop.schedule(at: EventLoop.now() + delay) { [self] in fire() }
    }
}
