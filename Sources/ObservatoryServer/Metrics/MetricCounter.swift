import Synchronization

/// One counter or gauge that many threads change: a relaxed atomic, so that
/// counting on the hot path costs one uncontended add and takes no lock.
final class MetricCounter: Sendable {
    private let value = Atomic<Int>(0)

    /// Creates a counter at zero.
    init() {}

    /// Adds `amount` (negative for a gauge going down).
    func add(_ amount: Int = 1) {
        value.add(amount, ordering: .relaxed)
    }

    /// The current value, for a scrape.
    var current: Int {
        value.load(ordering: .relaxed)
    }
}
