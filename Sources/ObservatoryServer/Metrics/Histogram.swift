import Observatory

/// Counts observations (such as fsync durations, in seconds) into fixed
/// buckets, with their sum: what a Prometheus histogram reports.
///
/// Thread-safe: the counts live behind a `Locked` box (a pthread mutex ThreadSanitizer understands), taken for an addition or a
/// copy and never across a call out. Observations come from the storage
/// thread, reads from a scrape.
final class Histogram: Sendable {
    /// A copy of the counts: `counts[i]` observations were at most
    /// `bounds[i]` and above `bounds[i - 1]`; `count` includes those above
    /// every bound.
    struct Snapshot: Equatable {
        /// The upper bounds of the buckets, increasing.
        let bounds: [Double]
        /// The observations per bucket (not cumulative).
        var counts: [UInt64]
        /// The sum of every observation.
        var sum: Double
        /// How many observations there were.
        var count: UInt64
    }

    private let state: Locked<Snapshot>

    /// Creates an empty histogram with the given upper bounds, sorted.
    init(bounds: [Double]) {
        let sorted = bounds.sorted()
        state = Locked(Snapshot(bounds: sorted, counts: Array(repeating: 0, count: sorted.count), sum: 0, count: 0))
    }

    /// Bounds for durations of a disk flush: 100 µs to 10 s.
    static let durationBounds: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    /// Adds one observation.
    func observe(_ value: Double) {
        state.withLock { snapshot in
            if let bucket = snapshot.bounds.firstIndex(where: { value <= $0 }) {
                snapshot.counts[bucket] += 1
            }
            snapshot.sum += value
            snapshot.count += 1
        }
    }

    /// A consistent copy of the counts.
    var snapshot: Snapshot {
        state.withLock { $0 }
    }
}
