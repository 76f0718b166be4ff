/// One measurement of one scenario on one server: the figure its row compares
/// (per second, nanoseconds or bytes, as the scenario says), the latency
/// percentiles where the scenario has them, and anything that went wrong.
struct ScenarioResult {
    let figure: Double
    /// Median latency in nanoseconds.
    var p50: Double?
    /// 99th-percentile latency in nanoseconds.
    var p99: Double?
    /// The largest latency in nanoseconds (within the histogram's 1.6 %), where a row shows it.
    var maximum: Double?
    /// Failed requests, missing events: printed next to the figures.
    var problems: [String] = []
    /// The server's and the benchmark's CPU use while the load ran.
    var cpu: CPUMeter.Reading?
    /// Fan-out: the server's CPU time per delivery, in nanoseconds, which compares
    /// transports whatever else limits the rate (the client, a busy machine).
    var cpuPerDelivery: Double?

    init(figure: Double, latency: LatencyHistogram? = nil) {
        self.figure = figure
        if let latency, latency.count > 0 {
            p50 = Double(latency.percentile(0.5))
            p99 = Double(latency.percentile(0.99))
        }
    }

    /// Adds a problem, if `count` is not zero.
    mutating func note<Count: BinaryInteger>(_ count: Count, _ what: String) {
        if count != 0 { problems.append("\(count) \(what)") }
    }

    /// One line for the progress log: the figure, the percentiles, CPU use and problems.
    func summary(_ unit: ServerScenario.Unit) -> String {
        var parts = [FigureFormat.format(figure, unit)]
        if let p50, let p99 {
            parts.append(FigureFormat.percentiles(p50, p99, maximum: maximum))
        }
        if let cpu {
            let format = "cpu: server %.0f%%, bench %.0f%%, others %.0f%%"
            parts.append(String(format: format, cpu.server, cpu.bench, cpu.others))
        }
        if let cpuPerDelivery {
            parts.append("server CPU per delivery \(FigureFormat.format(cpuPerDelivery, .nanoseconds))")
        }
        return (parts + problems).joined(separator: "; ")
    }
}
