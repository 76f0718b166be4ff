#if canImport(Glibc)
import Glibc
#endif

/// A failure of the client's TCP socket, with the `errno` that caused it.
///
/// Modelled as a struct with a private code enum, so new kinds can be added
/// without breaking code that switches over the public ones.
struct SocketError: Error, Equatable, CustomStringConvertible {
    /// What kind of socket operation failed.
    enum Code: Equatable, Sendable {
        case resolveFailed
        case connectFailed
        case timedOut
        case writeFailed
        case readFailed
        case closed
    }

    /// What kind of socket operation failed.
    let code: Code
    /// The `errno` value at the time of the failure, or 0 when there was none.
    let errorNumber: Int32
    /// What the client was doing, such as `connect to 127.0.0.1:7070`.
    let operation: String

    /// A message a user can act on, such as
    /// `connect to 127.0.0.1:7070 failed: Connection refused (errno 111)`.
    var description: String {
        switch code {
        case .timedOut:
            return "\(operation) timed out"
        case .closed:
            return "\(operation) failed: the connection is closed"
        case .resolveFailed:
            return "\(operation) failed: cannot resolve the host (\(Self.resolverMessage(errorNumber)))"
        case .connectFailed, .writeFailed, .readFailed:
            guard errorNumber != 0 else { return "\(operation) failed" }
            return "\(operation) failed: \(Self.systemMessage(errorNumber)) (errno \(errorNumber))"
        }
    }

    /// The C library's text for an `errno` value.
    private static func systemMessage(_ number: Int32) -> String {
        guard let text = strerror(number) else { return "unknown error" }
        return String(cString: text)
    }

    /// The resolver's text for a `getaddrinfo` result.
    private static func resolverMessage(_ number: Int32) -> String {
        guard let text = gai_strerror(number) else { return "unknown error" }
        return String(cString: text)
    }
}
