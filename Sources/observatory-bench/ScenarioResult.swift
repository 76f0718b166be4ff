/// One measurement of one scenario on one server: the figure its row compares
/// (per second, nanoseconds or bytes, as the scenario says), the latency
/// percentiles where the scenario has them, and anything that went wrong.
struct ScenarioResult {
    let figure: Double
    /// Median latency in nanoseconds.
    var p50: Double?
    /// 99th-percentile latency in nanoseconds.
    var p99: Double?
    /// Failed requests, missing events: printed next to the figures.
    var problems: [String] = []

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
}
