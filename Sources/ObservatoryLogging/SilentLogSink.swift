/// A sink that drops every record; the sink of `Logger.silent`.
public struct SilentLogSink: LogSink {
    /// Creates the sink.
    public init() {}

    /// Drops the record.
    public func write(_ record: LogRecord) {}
}
