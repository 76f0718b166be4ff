import Foundation

/// The scenarios of `observatory-bench server`, each measured on both servers:
/// fan-out of one writer's changes to 1, 100 and 1,000 observers; the same paced at
/// 10,000 writes/s to 100 observers, for latency under a fixed load; request/response
/// writes on 1 and 50 connections; and the memory of 1,000 and 10,000 idle connections.
enum ServerScenario: TableScenario, Equatable, Sendable {
    case fanOut(observers: Int)
    case paced(observers: Int, rate: Int)
    case writes(connections: Int)
    case idleMemory(connections: Int)

    /// Every scenario, in the table's order.
    static let all: [ServerScenario] = [
        .fanOut(observers: 1), .fanOut(observers: 100), .fanOut(observers: 1_000),
        .paced(observers: 100, rate: 10_000),
        .writes(connections: 1), .writes(connections: 50),
        .idleMemory(connections: 1_000), .idleMemory(connections: 10_000),
    ]

    /// Unacknowledged writes the fan-out writer keeps in flight.
    static let window = 64

    /// What a row's figure counts, which also says how to print it.
    enum Unit {
        case perSecond
        case nanoseconds
        case bytes
    }

    /// The name `--scenarios` takes.
    var name: String {
        switch self {
        case .fanOut(let observers): "fanout-\(observers)"
        case .paced(let observers, _): "paced-\(observers)"
        case .writes(let connections): "writes-\(connections)"
        case .idleMemory(let connections): "memory-\(connections)"
        }
    }

    /// The row's title in the table.
    var title: String {
        switch self {
        case .fanOut(let observers):
            "fan-out to \(observers.formatted()) observer\(observers == 1 ? "" : "s"), deliveries/s"
        case .paced(let observers, let rate):
            "paced \(rate.formatted()) sets/s to \(observers.formatted()) observers, p99 latency"
        case .writes(let connections):
            "writes, \(connections.formatted()) connection\(connections == 1 ? "" : "s"), sets/s"
        case .idleMemory(let connections):
            "memory per idle connection, \(connections.formatted()) connections"
        }
    }

    var cpuPerDeliveryTitle: String? {
        guard case .fanOut(let observers) = self else { return nil }
        return "fan-out to \(observers.formatted()) observer\(observers == 1 ? "" : "s"), server CPU per delivery"
    }

    var unit: Unit {
        switch self {
        case .fanOut, .writes: .perSecond
        case .paced: .nanoseconds
        case .idleMemory: .bytes
        }
    }

    /// Memory is measured on a fresh server each time, so that memory freed by
    /// earlier scenarios does not hide growth.
    var needsFreshServer: Bool {
        if case .idleMemory = self { return true }
        return false
    }

    /// Measures this scenario once on `server`, in run number `run` (which makes its key unique).
    func measure(on server: ServerProcess, seconds: Double, run: Int) throws -> ScenarioResult {
        let key = "bench.\(name).\(run)"
        return switch self {
        case .fanOut(let observers):
            try Self.fanOut(observersOn: server, key: key, observers: observers, rate: nil, seconds: seconds)
        case .paced(let observers, let rate):
            try Self.fanOut(observersOn: server, key: key, observers: observers, rate: Double(rate), seconds: seconds)
        case .writes(let connections):
            try Self.writes(server, connections: connections, seconds: seconds)
        case .idleMemory(let connections):
            try Self.idleMemory(server, connections: connections)
        }
    }

    /// One writer changes `key`, `observers` observers on `server` receive every change;
    /// or, with several `writers`, each changes `key.N` and the observers observe the
    /// prefix `key.`. The writers are on `writerServer` (another node of a cluster) if
    /// given, else on `server`. The CPU figures are `server`'s. The figure is the p99
    /// latency (and the maximum is kept) when `latencyFigure`, which it is by default
    /// when paced at `rate`; else it is the delivery rate.
    static func fanOut(
        observersOn server: ServerProcess, writerOn writerServer: ServerProcess? = nil, key: String, observers: Int,
        rate: Double?, seconds: Double, writers: Int = 1, latencyFigure: Bool? = nil
    ) throws -> ScenarioResult {
        let driver = try LoadDriver(dialect: server.launch.dialect)
        let observerRange = try driver.connect(port: server.port, count: observers)
        let writerRange = try driver.connect(port: (writerServer ?? server).port, count: writers)
        let keys = writers == 1 ? [key] : (0..<writers).map { "\(key).\($0)" }
        for index in observerRange {
            driver.send(on: index) {
                if writers == 1 {
                    driver.dialect.appendObserve(key, to: &$0)
                } else {
                    driver.dialect.appendObserve(prefix: key + ".", to: &$0)
                }
            }
        }
        try waitFor(ReplyWait(replies: observers), on: driver, what: "observe replies")
        let plan = FanOutWorkload.Plan(keys: keys, observers: observers, window: window, rate: rate, seconds: seconds)
        var workload = FanOutWorkload(plan: plan, writers: writerRange, start: MonotonicClock.now())
        let deadline = MonotonicClock.now() + MonotonicClock.nanoseconds(seconds + plan.drainSeconds + 1)
        let meter = CPUMeter(serverPID: server.pid)
        _ = try driver.run(&workload, until: deadline)
        // Paced, the load is fixed and the p99 latency is the figure.
        let isLatency = latencyFigure ?? (rate != nil)
        let figure = isLatency ? Double(workload.latency.percentile(0.99)) : workload.deliveryRate
        var result = ScenarioResult(figure: figure, latency: workload.latency)
        if isLatency { result.maximum = Double(workload.latency.percentile(1)) }
        result.cpu = meter.read()
        if let cpu = result.cpu, workload.deliveries > 0 {
            result.cpuPerDelivery = cpu.serverSeconds * 1e9 / Double(workload.deliveries)
        }
        result.note(workload.failedWrites, "failed writes")
        result.note(workload.missing, "events missing")
        return result
    }

    /// `connections` connections to `server`, each setting a random key, waiting for the reply, and setting the next.
    static func writes(_ server: ServerProcess, connections: Int, seconds: Double) throws -> ScenarioResult {
        let driver = try LoadDriver(dialect: server.launch.dialect)
        let range = try driver.connect(port: server.port, count: connections)
        var workload = RequestResponseWorkload(connections: range, start: MonotonicClock.now(), seconds: seconds)
        let meter = CPUMeter(serverPID: server.pid)
        _ = try driver.run(&workload, until: MonotonicClock.now() + MonotonicClock.nanoseconds(seconds + 3))
        var result = ScenarioResult(figure: workload.rate, latency: workload.latency)
        result.cpu = meter.read()
        result.note(workload.failures, "failed sets")
        return result
    }

    /// Opens `connections` connections, has each answer one ping, and divides the
    /// server's resident-memory growth by their number.
    private static func idleMemory(_ server: ServerProcess, connections: Int) throws -> ScenarioResult {
        let before = try server.residentKilobytes()
        let driver = try LoadDriver(dialect: server.launch.dialect)
        let range = try driver.connect(port: server.port, count: connections)
        for index in range { driver.send(on: index) { driver.dialect.appendPing(to: &$0) } }
        try waitFor(ReplyWait(replies: connections), on: driver, what: "ping replies")
        let after = try server.residentKilobytes()
        return ScenarioResult(figure: Double(after - before) * 1_024 / Double(connections))
    }

    /// Runs `wait` to completion (at most 30 s); throws if it does not complete or a reply failed.
    private static func waitFor(_ wait: ReplyWait, on driver: LoadDriver, what: String) throws {
        var wait = wait
        let deadline = MonotonicClock.now() + MonotonicClock.nanoseconds(30)
        guard try driver.run(&wait, until: deadline) else { throw BenchError("\(what) did not all arrive within 30 s") }
        guard wait.failures == 0 else { throw BenchError("\(wait.failures) \(what) reported failures") }
    }
}
