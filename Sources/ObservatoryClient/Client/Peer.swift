/// A remote session that changed a value: the author of a mirror's remote `Update`s.
///
/// The client hands out exactly one `Peer` object per server session, so
/// observers can filter by identity with the core's transforms, for example
/// `observer.observe(mirror).from(peer) { ... }`. Peers are new objects
/// after every reconnect of this client (the server may have restarted, and
/// session ids are unique only within one run of the server), and a program
/// that reconnects gets a new session; compare ``name`` to follow a person or
/// program across sessions.
public final class Peer: Sendable, CustomStringConvertible {
    /// The author name the server stamped on the change (from `hello` or the token).
    public let name: String
    /// The server's id of the session (connection) that made the change.
    public let session: String

    init(name: String, session: String) {
        self.name = name
        self.session = session
    }

    /// `name (session)`, for logs.
    public var description: String { "\(name) (\(session))" }
}
