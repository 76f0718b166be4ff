import ObservatoryWire

/// Why a request of the client failed, or what went wrong with a mirror.
///
/// Server errors keep the protocol's code (``ErrorCode``), message and, for a
/// `conflict`, the key's current version, so callers can react precisely:
///
///     do {
///         try await client.set("door.locked", true, ifVersion: 12)
///     } catch .server(let error) where error.code == .conflict {
///         print("someone else changed it; now at version \(error.currentVersion ?? 0)")
///     }
public enum ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an error reply (`not_found`, `conflict`, `forbidden`, ...).
    case server(WireError)
    /// The client could not open a connection; the text says why (with errno).
    case connectionFailed(String)
    /// The client has no synchronized connection right now; the state says where it stands.
    case notConnected(ConnectionState)
    /// The connection ended before the reply came; the request may or may not have been applied.
    case connectionLost(DisconnectReason)
    /// The client was closed.
    case closed
    /// A remote value does not decode as the mirror's or caller's type; the mirror kept its value.
    case undecodableValue(key: String, version: Int64, type: String, detail: String)
    /// A local value could not be encoded as JSON, so it was not sent.
    case unencodableValue(key: String, detail: String)
    /// The server sent a frame or reply the client cannot understand.
    case badReply(String)
    /// Waiting for the connection took longer than the caller allowed.
    case timedOut(String)
    /// The `Var` given to a mirror operation is not a mirror of this client.
    case notAMirror

    /// The protocol error code, when the server refused the request.
    public var code: ErrorCode? {
        guard case .server(let error) = self else { return nil }
        return error.code
    }

    /// The key's current version carried by a `conflict` error (0 when the key is missing).
    public var currentVersion: Int64? {
        guard case .server(let error) = self else { return nil }
        return error.currentVersion
    }

    /// A message a user can act on.
    public var description: String {
        switch self {
        case .server(let error):
            let version = error.currentVersion.map { " (current version \($0))" } ?? ""
            return "\(error.code): \(error.message)\(version)"
        case .connectionFailed(let detail):
            return "cannot connect: \(detail)"
        case .notConnected(let state):
            return "not connected to the server (\(state)); the client reconnects by itself, try again later"
        case .connectionLost(let reason):
            return
                "the connection ended before the reply came (\(reason)); the request may or may not have been applied"
        case .closed:
            return "the client is closed"
        case .undecodableValue(let key, let version, let type, let detail):
            return "the value of \(key) (version \(version)) is not a \(type): \(detail); the local value was kept"
        case .unencodableValue(let key, let detail):
            return "the value for \(key) cannot be encoded as JSON, so it was not sent: \(detail)"
        case .badReply(let detail):
            return "the server sent something unexpected: \(detail)"
        case .timedOut(let detail):
            return "timed out: \(detail)"
        case .notAMirror:
            return "the variable is not a mirror of this client; get one from variable(_:default:)"
        }
    }
}
