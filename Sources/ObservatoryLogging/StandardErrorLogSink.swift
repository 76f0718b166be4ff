import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// The daemon's sink: one line per record on standard error,
/// `2026-11-21T12:40:00.123Z info message`.
///
/// Each line goes out in a single `write(2)` call, so lines from different
/// threads never mix.
public struct StandardErrorLogSink: LogSink {
    /// Creates the sink.
    public init() {}

    /// Formats the record and writes it to file descriptor 2.
    public func write(_ record: LogRecord) {
        let line = Self.format(record)
        Array(line.utf8).withUnsafeBytes { writeToStandardError($0) }
    }

    /// The text of one line, ending in a newline: UTC timestamp, level, message.
    public static func format(_ record: LogRecord) -> String {
        let level = record.level.rawValue.uppercased()
        return "\(timestamp(record.date)) \(level) \(record.message)\n"
    }

    /// An ISO 8601 UTC timestamp with milliseconds.
    static func timestamp(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        let milliseconds = Int((interval - Double(seconds)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return "\(parts.tm_year + 1900)-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))"
            + "T\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec))"
            + ".\(pad(Int32(milliseconds), width: 3))Z"
    }

    private static func pad(_ number: Int32, width: Int = 2) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}

/// One `write(2)` of `bytes` to file descriptor 2: a function of the file, where
/// `write` names the system call (in the sink it names the sink's own method).
private func writeToStandardError(_ bytes: UnsafeRawBufferPointer) {
    _ = write(2, bytes.baseAddress, bytes.count)
}
