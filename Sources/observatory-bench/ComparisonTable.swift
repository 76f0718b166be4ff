import Foundation

/// The results of every run, per scenario and server, printed as a Markdown table:
/// one row per scenario, one column per server with the median of the runs (range
/// in parentheses, then the medians of p50 and p99), and the ratio of the first
/// server's median to the second's.
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
            let cells = servers.map { " \(cell(scenario, $0)) |" }.joined()
            lines.append("| \(scenario.title) |" + cells + (servers.count == 2 ? " \(ratio(scenario)) |" : ""))
        }
        return lines.joined(separator: "\n")
    }

    private func cell(_ scenario: ServerScenario, _ server: String) -> String {
        let runs = results[scenario.name]?[server] ?? []
        let failed = failures[scenario.name]?[server] ?? []
        var parts: [String] = []
        if !runs.isEmpty {
            let figures = Measurement(runs: runs.map(\.figure))
            let (median, low, high) = (figures.median, figures.minimum, figures.maximum)
            parts.append(
                "\(Self.format(median, scenario.unit)) "
                    + "(\(Self.format(low, scenario.unit))–\(Self.format(high, scenario.unit)))")
            if let p50 = Self.median(runs.compactMap(\.p50)), let p99 = Self.median(runs.compactMap(\.p99)) {
                parts.append(Self.percentiles(p50, p99))
            }
            parts += runs.flatMap(\.problems)
        }
        if !failed.isEmpty { parts.append("\(failed.count) run(s) failed: \(failed[0])") }
        return parts.isEmpty ? "—" : parts.joined(separator: "; ")
    }

    private func ratio(_ scenario: ServerScenario) -> String {
        let medians = servers.map { server in Self.median((results[scenario.name]?[server] ?? []).map(\.figure)) }
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
            return String(format: "%.0f µs", value / 1e3)
        case .bytes:
            return value >= 1_024 ? String(format: "%.1f KB", value / 1_024) : String(format: "%.0f B", value)
        }
    }
}
