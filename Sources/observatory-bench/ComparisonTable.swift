import Foundation

/// The results of every run, per scenario and server, printed as a Markdown table:
/// one row per scenario, one column per server with the median of the runs (range
/// in parentheses, then the medians of p50 and p99), and the ratio of the first
/// server's median to the second's; under each fan-out row, the server's CPU time
/// per delivery, the figure that compares transports of one server.
struct ComparisonTable {
    private let servers: [String]
    private let scenarios: [ServerScenario]
    private var results: [String: [String: [ScenarioResult]]] = [:]
    private var failures: [String: [String: [String]]] = [:]

    init(servers: [String], scenarios: [ServerScenario]) {
        self.servers = servers
        self.scenarios = scenarios
    }

    mutating func add(_ result: ScenarioResult, scenario: ServerScenario, server: String) {
        results[scenario.name, default: [:]][server, default: []].append(result)
    }

    /// Records a failed measurement; its message goes into a table cell, so without pipes or line breaks.
    mutating func addFailure(_ message: String, scenario: ServerScenario, server: String) {
        let cellText = message.map { $0 == "|" || $0.isNewline ? " " : String($0) }.joined()
        failures[scenario.name, default: [:]][server, default: []].append(cellText)
    }

    var markdown: String {
        let ratioHeader = servers.count == 2 ? " \(servers[0]) / \(servers[1]) |" : ""
        var lines = ["| scenario |" + servers.map { " \($0) |" }.joined() + ratioHeader]
        lines.append("|---|" + servers.map { _ in "---|" }.joined() + (servers.count == 2 ? "---|" : ""))
        for scenario in scenarios {
            lines.append(row(scenario.title, scenario, { $0.figure }, scenario.unit, withLatency: true))
            if case .fanOut(let observers) = scenario {
                let title =
                    "fan-out to \(observers.formatted()) observer\(observers == 1 ? "" : "s"), server CPU per delivery"
                lines.append(row(title, scenario, { $0.cpuPerDelivery }, .nanoseconds, withLatency: false))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// One row: a cell per server with the median of `figure` over the runs, and the ratio.
    private func row(
        _ title: String, _ scenario: ServerScenario, _ figure: (ScenarioResult) -> Double?,
        _ unit: ServerScenario.Unit, withLatency: Bool
    ) -> String {
        let cells = servers.map { " \(cell(scenario, $0, figure, unit, withLatency: withLatency)) |" }.joined()
        return "| \(title) |" + cells + (servers.count == 2 ? " \(ratio(scenario, figure)) |" : "")
    }

    private func cell(
        _ scenario: ServerScenario, _ server: String, _ figure: (ScenarioResult) -> Double?,
        _ unit: ServerScenario.Unit, withLatency: Bool
    ) -> String {
        let runs = results[scenario.name]?[server] ?? []
        let failed = failures[scenario.name]?[server] ?? []
        var parts: [String] = []
        let values = runs.compactMap { figure($0) }
        if !values.isEmpty {
            let figures = Measurement(runs: values)
            let (median, low, high) = (figures.median, figures.minimum, figures.maximum)
            parts.append("\(Self.format(median, unit)) (\(Self.format(low, unit))–\(Self.format(high, unit)))")
        }
        if withLatency, !runs.isEmpty {
            if let p50 = Self.median(runs.compactMap(\.p50)), let p99 = Self.median(runs.compactMap(\.p99)) {
                parts.append(Self.percentiles(p50, p99))
            }
            parts += runs.flatMap(\.problems)
        }
        if withLatency, !failed.isEmpty { parts.append("\(failed.count) run(s) failed: \(failed[0])") }
        return parts.isEmpty ? "—" : parts.joined(separator: "; ")
    }

    private func ratio(_ scenario: ServerScenario, _ figure: (ScenarioResult) -> Double?) -> String {
        let medians = servers.map { server in
            Self.median((results[scenario.name]?[server] ?? []).compactMap { figure($0) })
        }
        guard let first = medians[0], let second = medians[1], second > 0 else { return "—" }
        return String(format: "%.2f", first / second)
    }

    private static func median(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : Measurement(runs: values).median
    }

    /// `p50 87 µs, p99 1.2 ms`.
    static func percentiles(_ p50: Double, _ p99: Double) -> String {
        "p50 \(format(p50, .nanoseconds)), p99 \(format(p99, .nanoseconds))"
    }

    /// `2.61M`, `412k`, `1.2 ms`, `87 µs`, `2.7 KB`.
    static func format(_ value: Double, _ unit: ServerScenario.Unit) -> String {
        switch unit {
        case .perSecond:
            if value >= 1e6 { return String(format: "%.2fM", value / 1e6) }
            if value >= 1e3 { return String(format: "%.1fk", value / 1e3) }
            return String(format: "%.0f", value)
        case .nanoseconds:
            if value >= 1e6 { return String(format: "%.1f ms", value / 1e6) }
            if value < 1e3 { return String(format: "%.0f ns", value) }
            if value < 1e4 { return String(format: "%.2f µs", value / 1e3) }
            return String(format: "%.0f µs", value / 1e3)
        case .bytes:
            return value >= 1_024 ? String(format: "%.1f KB", value / 1_024) : String(format: "%.0f B", value)
        }
    }
}
