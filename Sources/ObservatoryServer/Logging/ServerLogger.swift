/// The logger the server is given: a minimum level and a sink.
///
/// Injected through `Server.init(configuration:logger:)`. The message is an
/// autoclosure so that debug lines cost nothing when the level is higher.
///
///     let logger = ServerLogger(level: .debug, sink: StandardErrorLogSink())
///     logger.info("listening on 127.0.0.1:7070")
public struct ServerLogger: Sendable {
    /// Records below this level are dropped.
    public var level: LogLevel
    /// Receives every record at or above `level`.
    public let sink: any LogSink

    /// Creates a logger that passes records at or above `level` to `sink`.
    public init(level: LogLevel, sink: any LogSink) {
        self.level = level
        self.sink = sink
    }

    /// A logger that drops everything, for tests and embedding programs that do not care.
    public static let silent = ServerLogger(level: .error, sink: SilentLogSink())

    /// Logs `message` at `level` if the level is enabled.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= self.level else { return }
        sink.write(LogRecord(level: level, message: message()))
    }

    /// Logs at `debug`.
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    /// Logs at `info`.
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    /// Logs at `warning`.
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    /// Logs at `error`.
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}
