/// Where the client's connection to the server stands.
///
/// Every change of state is announced to the observers of
/// ``ObservatoryClient/connectionState``. A resync of the mirrors after a
/// reconnect is always announced: the state goes through ``connecting``
/// (while the client says hello and fetches fresh snapshots) to ``connected``
/// (once every mirror holds the snapshot's value).
public enum ConnectionState: Sendable, Equatable, CustomStringConvertible {
    /// The client is opening a connection, saying hello, or resyncing its mirrors.
    case connecting
    /// The client is connected and every mirror is in sync with the server.
    case connected
    /// The client has no connection; it retries unless it was closed.
    case disconnected(DisconnectReason)

    /// A short description for logs, such as `disconnected (connection refused)`.
    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case .disconnected(let reason): "disconnected (\(reason))"
        }
    }

    /// Whether the client can send requests now.
    public var isConnected: Bool { self == .connected }
}
