/// How important a log line is; lines below the configured level are dropped.
///
/// The raw values are the names accepted by `--log-level`, `OBSERVATORY_LOG_LEVEL`
/// and the `logLevel` setting.
public enum LogLevel: String, Sendable, CaseIterable, Comparable {
    /// Per-connection detail: connects, disconnects, protocol errors of one client.
    case debug
    /// Events an operator wants to see: start, listen address, stop.
    case info
    /// Something unusual the server worked around, such as a low file limit.
    case warning
    /// Something failed and a client or the operator is affected.
    case error

    /// Orders levels from `debug` (least important) to `error`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.severity < rhs.severity
    }

    private var severity: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .warning: 2
        case .error: 3
        }
    }
}
