import ObservatoryLocking

/// A sink that keeps every record in memory, so tests can assert what was logged.
///
/// Thread-safe: the records live behind a `Locked` box (a pthread mutex ThreadSanitizer understands).
public final class RecordingLogSink: LogSink {
    private let storage = Locked<[LogRecord]>([])

    /// Creates an empty recording sink.
    public init() {}

    /// Appends the record.
    public func write(_ record: LogRecord) {
        storage.withLock { $0.append(record) }
    }

    /// Every record written so far, oldest first.
    public var records: [LogRecord] {
        storage.withLock { $0 }
    }
}
