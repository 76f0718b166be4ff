/// Where the client library writes its log lines; the program decides where they go.
///
/// The library never prints. It logs connection changes at `info`, resyncs at
/// `debug`, and values it cannot decode or writes the server refused at `warning`.
///
///     let logger = ClientLogger(minimumLevel: .info) { level, message in
///         FileHandle.standardError.write(Data("[\(level)] \(message)\n".utf8))
///     }
public struct ClientLogger: Sendable {
    /// How important a log line is.
    public enum Level: Int, Sendable, Comparable, CustomStringConvertible {
        /// Detail for debugging the client itself.
        case debug
        /// Normal events, such as connecting and reconnecting.
        case info
        /// Something went wrong but the client carries on, such as an undecodable value.
        case warning
        /// Something went wrong that the program should look at.
        case error

        /// Orders levels from `debug` to `error`.
        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The level's name, such as `warning`.
        public var description: String {
            switch self {
            case .debug: "debug"
            case .info: "info"
            case .warning: "warning"
            case .error: "error"
            }
        }
    }

    /// Lines below this level are dropped.
    public var minimumLevel: Level
    private let write: @Sendable (Level, String) -> Void

    /// Creates a logger that passes every line at or above `minimumLevel` to `write`.
    public init(minimumLevel: Level = .info, write: @escaping @Sendable (Level, String) -> Void) {
        self.minimumLevel = minimumLevel
        self.write = write
    }

    /// A logger that drops every line: the default.
    public static let silent = ClientLogger(minimumLevel: .error) { _, _ in }

    /// Logs one line if its level is high enough.
    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard level >= minimumLevel else { return }
        write(level, message())
    }
}
