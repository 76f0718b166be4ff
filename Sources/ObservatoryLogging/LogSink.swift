/// Where log records go: standard error in the daemon, memory in tests.
///
/// The libraries never print; they hand records to the sink their `Logger` holds,
/// so embedding programs and tests decide where lines end up.
public protocol LogSink: Sendable {
    /// Takes one record. Called from any thread; implementations must be thread-safe.
    func write(_ record: LogRecord)
}
