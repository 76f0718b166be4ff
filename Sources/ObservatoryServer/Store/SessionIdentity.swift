/// Who makes changes on one connection: the author name and the session id the
/// server stamps on every change, never taken from the request.
///
/// A class because the core library identifies the author of a message by object
/// identity; immutable, so a new `hello` makes a new identity.
public final class SessionIdentity: Sendable {
    /// The author name: the `hello` name, the token's author, or `anonymous`.
    public let name: String
    /// The session id, unique within this server process (`s1`, `s2`, …).
    public let session: String

    /// Creates an identity.
    public init(name: String, session: String) {
        self.name = name
        self.session = session
    }

    /// The author of changes made before any `hello`.
    public static let anonymousName = "anonymous"
}
