#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why storage could not do something, with a message an operator can act on.
///
/// The message names the file (and the offset, for damaged data) and says what to
/// do. `code` tells the kinds apart for programs; the daemon prints `description`.
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable {
        /// A file operation failed (disk full, I/O error, permission).
        case system
        /// Another process holds the data directory.
        case directoryInUse
        /// A data file holds bytes that are not valid records, or records that do not fit together.
        case damaged
        /// Storage stopped accepting writes after an earlier failure and is recovering.
        case unavailable
    }

    /// The kind of failure.
    public let code: Code
    /// What happened and what to do, for a person.
    public let message: String
    /// The system's error number, for `system` failures.
    public let errorNumber: Int32?

    /// Creates an error.
    public init(code: Code, message: String, errorNumber: Int32? = nil) {
        self.code = code
        self.message = message
        self.errorNumber = errorNumber
    }

    public var description: String { message }

    /// A failed file operation: "No space left on device (errno 28) writing data/log-…".
    public static func system(_ operation: String, path: String, errorNumber: Int32) -> StorageError {
        StorageError(
            code: .system, message: "\(reason(errorNumber)) (errno \(errorNumber)): cannot \(operation) \(path)",
            errorNumber: errorNumber)
    }

    /// The system's text for an error number.
    static func reason(_ errorNumber: Int32) -> String {
        guard let text = strerror(errorNumber) else { return "error \(errorNumber)" }
        return String(cString: text)
    }
}
