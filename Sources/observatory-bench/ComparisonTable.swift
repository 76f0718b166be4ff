import Foundation

/// The results of every run, per scenario and server, printed as a Markdown table:
/// one row per scenario, one column per server with the median of the runs (range
/// in parentheses, then the medians of p50 and p99), and the ratio of the first
/// server's median to the second's; under each row that measures it (fan-out), the
/// server's CPU time per delivery, the figure that compares transports of one server.
struct ComparisonTable<Scenario: TableScenario> {
    private let servers: [String]
    private let scenarios: [Scenario]
    private var results: [String: [String: [ScenarioResult]]] = [:]
    private var failures: [String: [String: [String]]] = [:]

    init(servers: [String], scenarios: [Scenario]) {
        self.servers = servers
        self.scenarios = scenarios
    }

    mutating func add(_ result: ScenarioResult, scenario: Scenario, server: String) {
        results[scenario.name, default: [:]][server, default: []].append(result)
    }

    /// Records a failed measurement; its message goes into a table cell, so without pipes or line breaks.
    mutating func addFailure(_ message: String, scenario: Scenario, server: String) {
        let cellText = message.map { $0 == "|" || $0.isNewline ? " " : String($0) }.joined()
        failures[scenario.name, default: [:]][server, default: []].append(cellText)
    }

    var markdown: String {
        let ratioHeader = servers.count == 2 ? " \(servers[0]) / \(servers[1]) |" : ""
        var lines = ["| scenario |" + servers.map { " \($0) |" }.joined() + ratioHeader]
        lines.append("|---|" + servers.map { _ in "---|" }.joined() + (servers.count == 2 ? "---|" : ""))
        for scenario in scenarios {
            lines.append(row(scenario.title, scenario, { $0.figure }, scenario.unit, withLatency: true))
            if let title = scenario.cpuPerDeliveryTitle {
                lines.append(row(title, scenario, { $0.cpuPerDelivery }, .nanoseconds, withLatency: false))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// One row: a cell per server with the median of `figure` over the runs, and the ratio.
    private func row(
        _ title: String, _ scenario: Scenario, _ figure: (ScenarioResult) -> Double?,
        _ unit: ServerScenario.Unit, withLatency: Bool
    ) -> String {
        let cells = servers.map { " \(cell(scenario, $0, figure, unit, withLatency: withLatency)) |" }.joined()
        return "| \(title) |" + cells + (servers.count == 2 ? " \(ratio(scenario, figure)) |" : "")
    }

    private func cell(
        _ scenario: Scenario, _ server: String, _ figure: (ScenarioResult) -> Double?,
        _ unit: ServerScenario.Unit, withLatency: Bool
    ) -> String {
        let runs = results[scenario.name]?[server] ?? []
        let failed = failures[scenario.name]?[server] ?? []
        var parts: [String] = []
        let values = runs.compactMap { figure($0) }
        if !values.isEmpty {
            let figures = Measurement(runs: values)
            let (median, low, high) = (figures.median, figures.minimum, figures.maximum)
            let range = "\(FigureFormat.format(low, unit))–\(FigureFormat.format(high, unit))"
            parts.append("\(FigureFormat.format(median, unit)) (\(range))")
        }
        if withLatency, !runs.isEmpty {
            if let p50 = Self.median(runs.compactMap(\.p50)), let p99 = Self.median(runs.compactMap(\.p99)) {
                parts.append(FigureFormat.percentiles(p50, p99, maximum: Self.median(runs.compactMap(\.maximum))))
            }
            parts += runs.flatMap(\.problems)
        }
        if withLatency, !failed.isEmpty { parts.append("\(failed.count) run(s) failed: \(failed[0])") }
        return parts.isEmpty ? "—" : parts.joined(separator: "; ")
    }

    private func ratio(_ scenario: Scenario, _ figure: (ScenarioResult) -> Double?) -> String {
        let medians = servers.map { server in
            Self.median((results[scenario.name]?[server] ?? []).compactMap { figure($0) })
        }
        guard let first = medians[0], let second = medians[1], second > 0 else { return "—" }
        return String(format: "%.2f", first / second)
    }

    private static func median(_ values: [Double]) -> Double? {
        values.isEmpty ? nil : Measurement(runs: values).median
    }
}
