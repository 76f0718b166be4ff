/// A sink that drops every record; the sink of `ServerLogger.silent`.
public struct SilentLogSink: LogSink {
    /// Creates the sink.
    public init() {}

    /// Drops the record.
    public func write(_ record: LogRecord) {}
}
