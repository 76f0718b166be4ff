/// Each connection sets a random key, waits for the reply, and sets the next:
/// the request/response rate and latency of single writes (pipeline depth 1).
///
/// Its thirteen stored properties are the plan, the clock marks and the counters
/// that one run of the driver's loop updates together.
struct RequestResponseWorkload: Workload {
    /// Keys are drawn from this many, as the reference load generator does.
    private static let keySpace: UInt64 = 100_000

    private let connections: Range<Int>
    private let start: UInt64
    private let runEnd: UInt64
    private let drainEnd: UInt64
    private var sentAt: [UInt64]
    private var outstanding = 0
    private var started = false
    private var random: UInt64
    private var payload = BenchPayload()
    private var sequence: UInt64 = 0
    /// Replies received before the run's end.
    private(set) var completed: UInt64 = 0
    /// Replies that reported a failure.
    private(set) var failures = 0
    /// Set→reply latency of every reply.
    private(set) var latency = LatencyHistogram()

    init(connections: Range<Int>, start: UInt64, seconds: Double) {
        self.connections = connections
        self.start = start
        runEnd = start + MonotonicClock.nanoseconds(seconds)
        drainEnd = runEnd + MonotonicClock.nanoseconds(2)
        sentAt = Array(repeating: 0, count: connections.count)
        random = start | 1
    }

    /// Sets per second over the run.
    var rate: Double {
        Double(completed) / (Double(runEnd - start) / 1e9)
    }

    mutating func received(_ frame: WireDialect.Frame, on index: Int, at now: UInt64, driver: LoadDriver) {
        guard case .reply(let ok) = frame, connections.contains(index) else { return }
        outstanding -= 1
        if !ok { failures += 1 }
        let sent = sentAt[index - connections.lowerBound]
        latency.record(now > sent ? now - sent : 0)
        guard now < runEnd else { return }
        completed += 1
        set(on: index, at: now, driver: driver)
    }

    mutating func advance(at now: UInt64, driver: LoadDriver) -> Bool {
        if !started {
            started = true
            for index in connections { set(on: index, at: now, driver: driver) }
        }
        return now >= runEnd && (outstanding == 0 || now >= drainEnd)
    }

    private mutating func set(on index: Int, at now: UInt64, driver: LoadDriver) {
        sequence += 1
        payload.update(sequence: sequence, timestamp: now)
        let key = "bench.k.\(nextRandom() % Self.keySpace)"
        let value = payload.bytes
        driver.send(on: index) { driver.dialect.appendSet(key, value, to: &$0) }
        sentAt[index - connections.lowerBound] = now
        outstanding += 1
    }

    /// xorshift64: cheap and good enough to spread keys.
    private mutating func nextRandom() -> UInt64 {
        random ^= random << 13
        random ^= random >> 7
        random ^= random << 17
        return random
    }
}
