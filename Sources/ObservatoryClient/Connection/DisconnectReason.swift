/// Why the client is not connected.
public enum DisconnectReason: Error, Sendable, Equatable, CustomStringConvertible {
    /// The client has not tried to connect yet.
    case notStarted
    /// The client was closed by its owner; it does not reconnect.
    case closed
    /// The connection could not be opened or broke; the text says how (with errno).
    case connectionFailed(String)
    /// The server closed the connection.
    case closedByServer
    /// The server announced its shutdown.
    case serverShutdown
    /// The server did not answer a ping in time, so the connection counts as dead.
    case pingTimeout
    /// The TCP connection did not open within ``ClientConfiguration/connectTimeout``
    /// (a host that drops the attempt, or a server whose backlog is full).
    case connectTimeout
    /// The server accepted the connection but did not answer hello within
    /// ``ClientConfiguration/pingTimeout`` (a stopped process, or a proxy that
    /// accepts and does not forward).
    case helloTimeout
    /// The server answered hello but then sent nothing for
    /// ``ClientConfiguration/pingTimeout`` while the client resumed its observations.
    case resyncTimeout
    /// The server refused the hello (for example a wrong token); the text is its message.
    case rejected(String)
    /// The server sent something the client cannot understand.
    case protocolError(String)
    /// The server closed the connection because the client fell behind its
    /// events (`slow_consumer`); every change up to `revision` (when the server
    /// said) was delivered before. The client reconnects and resumes from there.
    case slowConsumer(revision: Int64?)

    /// A short description for logs and the command line.
    public var description: String {
        switch self {
        case .notStarted: "not started"
        case .closed: "closed"
        case .connectionFailed(let detail): detail
        case .closedByServer: "closed by the server"
        case .serverShutdown: "the server shut down"
        case .pingTimeout: "no reply to a ping in time"
        case .connectTimeout: "the connection did not open in time"
        case .helloTimeout: "no reply to hello in time"
        case .resyncTimeout: "no reply during the resync in time"
        case .rejected(let message): "rejected by the server: \(message)"
        case .protocolError(let detail): "protocol error: \(detail)"
        case .slowConsumer(let revision?): "closed as a slow consumer after revision \(revision)"
        case .slowConsumer(nil): "closed as a slow consumer"
        }
    }
}
