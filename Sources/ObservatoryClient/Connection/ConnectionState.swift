/// Where the client's connection to the server stands.
///
/// Every change of state is announced to the observers of
/// ``ObservatoryClient/connectionState``. A resync of the mirrors after a
/// reconnect is always announced: the state goes through ``connecting``
/// (while the client says hello and resumes its observations) to ``connected``
/// (once every mirror is in sync). When the server could not replay what the
/// client missed, the state passes through ``reset(_:)`` before ``connected``.
public enum ConnectionState: Sendable, Equatable, CustomStringConvertible {
    /// The client is opening a connection, saying hello, or resyncing its mirrors.
    case connecting
    /// The client is connected and every mirror is in sync with the server.
    case connected
    /// The client has no connection; it retries unless it was closed.
    case disconnected(DisconnectReason)
    /// The client reconnected but could not resume: the mirrors took fresh
    /// snapshots (their updates are authored by a ``Reset``), and changes made
    /// while it was away are not replayed. ``connected`` follows.
    case reset(String)

    /// A short description for logs, such as `disconnected (connection refused)`.
    public var description: String {
        switch self {
        case .connecting: "connecting"
        case .connected: "connected"
        case .disconnected(let reason): "disconnected (\(reason))"
        case .reset(let reason): "reset (\(reason))"
        }
    }

    /// Whether the client can send requests now.
    public var isConnected: Bool { self == .connected }
}
