/// How the suites print figures: rates with k and M, durations in the unit that
/// keeps two or three digits, bytes in KB; and latency percentiles on one line.
enum FigureFormat {
    /// `p50 87 µs, p99 1.2 ms`, and `, max 3.1 ms` when the maximum is given.
    static func percentiles(_ p50: Double, _ p99: Double, maximum: Double? = nil) -> String {
        let maximumText = maximum.map { ", max \(format($0, .nanoseconds))" } ?? ""
        return "p50 \(format(p50, .nanoseconds)), p99 \(format(p99, .nanoseconds))" + maximumText
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
