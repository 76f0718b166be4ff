/// When the server asks the allocator to give freed memory back (`SystemMemory.trim()`):
/// a second after many connections closed, whose small buffers leave free memory
/// scattered through the heap that the allocator would otherwise keep.
///
/// A plain value: the server keeps it behind a lock, reports each closed
/// connection, schedules a trim when told to, and reports the trim done.
struct TrimSchedule {
    /// Closed connections that make a trim worth its cost (it walks every heap).
    static let closedConnectionsPerTrim = 64
    /// How long after the closures the trim runs, so that one burst is one trim.
    static let delayNanoseconds: UInt64 = 1_000_000_000

    private var closedSinceTrim = 0
    private var isScheduled = false

    /// Counts a closed connection; returns whether to schedule a trim now.
    mutating func connectionClosed() -> Bool {
        closedSinceTrim += 1
        guard !isScheduled, closedSinceTrim >= Self.closedConnectionsPerTrim else { return false }
        isScheduled = true
        return true
    }

    /// Records that the scheduled trim ran; closures from now on count toward the next.
    mutating func trimmed() {
        isScheduled = false
        closedSinceTrim = 0
    }
}
