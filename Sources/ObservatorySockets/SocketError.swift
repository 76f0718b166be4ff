#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// A system call on a socket failed; carries the call and the `errno` it set.
///
/// Captured right after the failing call, before anything else can overwrite `errno`.
public struct SocketError: Error, Equatable, CustomStringConvertible {
    /// The operation that failed, such as `bind 127.0.0.1:7070`.
    public let operation: String
    /// The `errno` value, or 0 when the failure has no errno (address resolution).
    public let errorNumber: Int32
    /// Extra detail when there is no errno, such as the resolver's message.
    public let detail: String?

    /// Creates an error for `operation` with `errno`, or with a detail message.
    public init(operation: String, errorNumber: Int32, detail: String? = nil) {
        self.operation = operation
        self.errorNumber = errorNumber
        self.detail = detail
    }

    /// `operation` found the connection already closed (no system call failed).
    public static func closed(_ operation: String) -> SocketError {
        SocketError(operation: operation, errorNumber: 0, detail: "the connection is closed")
    }

    /// `operation` waited for the socket longer than its deadline (`ETIMEDOUT`).
    public static func timedOut(_ operation: String) -> SocketError {
        SocketError(operation: operation, errorNumber: ETIMEDOUT)
    }

    /// Captures the current `errno` for `operation`: call it right after the failing call.
    public static func lastError(_ operation: String) -> SocketError {
        SocketError(operation: operation, errorNumber: errno)
    }

    /// A message with the operation and the system's explanation.
    public var description: String {
        if let detail { return "\(operation) failed: \(detail)" }
        return "\(operation) failed: \(String(cString: strerror(errorNumber))) (errno \(errorNumber))"
    }
}
