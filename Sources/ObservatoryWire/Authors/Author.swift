/// Who made a change: the author name (from `hello`, or the token's author when
/// auth is on) and the session it was made in. docs/protocol.md's `author` and
/// `session` fields, as one value for both ends.
///
/// The server stamps one on every change a session makes; the client library
/// hands out exactly one `Author` object per remote session, as the author of
/// a mirror's remote `Update`s. It is a class because the core library tells
/// authors apart by object identity: observers filter with the core's
/// transforms, for example `observer.observe(mirror).from(author) { ... }`.
/// Immutable: a new `hello` makes a new author.
///
/// Session ids are unique within one epoch only, and a client that reconnects
/// gets a new session: compare ``name`` to follow a person or program across
/// sessions.
public final class Author: Sendable, CustomStringConvertible {
    /// The author name: the `hello` name, the token's author, or `anonymous`.
    public let name: String
    /// The server's id of the session that made the change (`s1`, `s2`, …).
    public let session: String

    /// Creates an author.
    public init(name: String, session: String) {
        self.name = name
        self.session = session
    }

    /// The author of changes made before any `hello`, or by a `hello` without a name.
    public static let anonymousName = "anonymous"

    /// `name (session)`, for logs.
    public var description: String { "\(name) (\(session))" }
}
