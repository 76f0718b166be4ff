/// A sink that hands each record to a closure: the shortest way for a program
/// to route the library's lines into its own logging.
public struct ClosureLogSink: LogSink {
    private let body: @Sendable (LogRecord) -> Void

    /// Creates a sink that calls `write` for every record, from any thread.
    public init(write: @escaping @Sendable (LogRecord) -> Void) {
        body = write
    }

    /// Passes the record to the closure.
    public func write(_ record: LogRecord) {
        body(record)
    }
}
