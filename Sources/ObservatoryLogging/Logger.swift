/// The one logger of Observatory's server, daemon, client library and CLI: a
/// minimum level and a sink.
///
/// Libraries never print: they hand records to the sink of the logger they are
/// given, so the program that embeds them decides where lines end up. The
/// message is an autoclosure, so a line below the level costs nothing to build.
///
///     let logger = Logger(level: .debug, sink: StandardErrorLogSink())
///     logger.info("listening on 127.0.0.1:7070")
///
///     // Or hand each record to a closure of your own:
///     let logger = Logger(level: .warning) { record in print(record.message) }
public struct Logger: Sendable {
    /// Records below this level are dropped.
    public var level: LogLevel
    /// Receives every record at or above `level`.
    public let sink: any LogSink

    /// Creates a logger that passes records at or above `level` to `sink`.
    public init(level: LogLevel, sink: any LogSink) {
        self.level = level
        self.sink = sink
    }

    /// Creates a logger that passes records at or above `level` to `write`,
    /// which may be called from any thread.
    public init(level: LogLevel, write: @escaping @Sendable (LogRecord) -> Void) {
        self.init(level: level, sink: ClosureLogSink(write: write))
    }

    /// A logger that drops everything: the default of every library type.
    public static let silent = Logger(level: .error, sink: SilentLogSink())

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
