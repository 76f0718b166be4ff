/// One writer changes one key, every observer receives every change; or several
/// writers each change a key of their own (`Plan.keys`), taking the writes in turn,
/// and the observers observe all of them, for a server that orders the writes of
/// one key one after another (a cluster node, each waiting for etcd).
///
/// The writers keep at most `window` writes each unacknowledged, so the server always
/// has work queued but no backlog grows without bound; or, paced, write i is sent at
/// start + i / rate and stamped with that intended time, so a writer that falls
/// behind shows as latency instead of hiding it (no coordinated omission).
/// Deliveries are counted while the writer writes; after that, a drain of at most
/// `drainSeconds` collects the events still in flight for the latency figures.
///
/// Its twelve stored properties are the plan, the clock marks and the counters
/// that one run of the driver's loop updates together.
struct FanOutWorkload: Workload {
    /// What to run.
    struct Plan {
        /// The writers' keys, one per writer.
        let keys: [String]
        let observers: Int
        let window: Int
        /// Writes per second, or nil for as fast as the window allows.
        let rate: Double?
        let seconds: Double
        let drainSeconds = 2.0
    }

    private let plan: Plan
    private let writers: Range<Int>
    private let start: UInt64
    private let runEnd: UInt64
    private var payload = BenchPayload()
    private var published: UInt64 = 0
    private var acknowledged: UInt64 = 0
    /// Write replies that reported a failure.
    private(set) var failedWrites = 0
    /// Events received before the writer stopped.
    private(set) var deliveriesWhileWriting: UInt64 = 0
    /// Events received in all, drain included.
    private(set) var deliveries: UInt64 = 0
    /// Write→event latency of every delivery.
    private(set) var latency = LatencyHistogram()
    /// When the writer stopped (the end of the measured time).
    private(set) var stoppedAt: UInt64?

    /// `writers` are the connections that write, one per key of the plan.
    init(plan: Plan, writers: Range<Int>, start: UInt64) {
        precondition(writers.count == plan.keys.count, "one key per writer")
        self.plan = plan
        self.writers = writers
        self.start = start
        runEnd = start + MonotonicClock.nanoseconds(plan.seconds)
    }

    /// Deliveries per second while the writer wrote.
    var deliveryRate: Double {
        let elapsed = Double((stoppedAt ?? runEnd) - start) / 1e9
        return Double(deliveriesWhileWriting) / elapsed
    }

    /// Events that never arrived (a server that coalesces for slow observers skips some).
    var missing: UInt64 {
        let expected = acknowledged * UInt64(plan.observers)
        return expected > deliveries ? expected - deliveries : 0
    }

    mutating func received(_ frame: WireDialect.Frame, on index: Int, at now: UInt64, driver: LoadDriver) {
        switch frame {
        case .reply(let ok) where writers.contains(index):
            acknowledged += 1
            if !ok { failedWrites += 1 }
        case .event(let stamp) where stamp >= start:
            deliveries += 1
            if now < runEnd { deliveriesWhileWriting += 1 }
            latency.record(now > stamp ? now - stamp : 0)
        default:
            break
        }
    }

    mutating func advance(at now: UInt64, driver: LoadDriver) -> Bool {
        guard now >= runEnd else {
            write(at: now, driver: driver)
            return false
        }
        let stopped = stoppedAt ?? now
        stoppedAt = stopped
        let drained = acknowledged == published && deliveries >= published * UInt64(plan.observers)
        return drained || now >= stopped + MonotonicClock.nanoseconds(plan.drainSeconds)
    }

    /// Queues the writes the window (and the pace) allow at `now`, dealt to the writers in turn.
    private mutating func write(at now: UInt64, driver: LoadDriver) {
        let window = UInt64(plan.window * writers.count)
        for _ in 0..<window where published - acknowledged < window {
            var stamp = now
            if let rate = plan.rate {
                let due = start + UInt64(Double(published) * 1e9 / rate)
                guard due <= now else {
                    driver.wakeUp(at: due)
                    return
                }
                stamp = due
            }
            let turn = Int(published % UInt64(writers.count))
            published += 1
            payload.update(sequence: published, timestamp: stamp)
            let (key, value) = (plan.keys[turn], payload.bytes)
            driver.send(on: writers.lowerBound + turn) { driver.dialect.appendPublish(key, value, to: &$0) }
        }
    }
}
