import Foundation

/// One log line before formatting: its level, its text and when it happened.
public struct LogRecord: Sendable, Equatable {
    /// How important the line is.
    public let level: LogLevel
    /// The text of the line, without level or timestamp.
    public let message: String
    /// When the line was logged.
    public let date: Date

    /// Creates a record; `date` defaults to now.
    public init(level: LogLevel, message: String, date: Date = Date()) {
        self.level = level
        self.message = message
        self.date = date
    }
}
