import ObservatoryWire

/// The one ``Author`` object per session the client has heard of, and its own.
///
/// Observers compare authors by identity (`notFrom(alice)`), so every change of
/// one session must carry the same object: the table hands it out. Session ids
/// are unique only within one run of the server, and a reconnect may reach a
/// restarted one, so the table starts afresh on every connection.
struct AuthorTable {
    private var bySession: [String: Author] = [:]
    /// The author of this client's own session while connected.
    private(set) var localAuthor: Author?

    /// The author of `session`, made on first sight with `name`.
    mutating func author(session: String, name: String) -> Author {
        if let known = bySession[session] { return known }
        let author = Author(name: name, session: session)
        bySession[session] = author
        return author
    }

    /// The server greeted this client as `name` in `session`.
    mutating func greeted(session: String, name: String) -> Author {
        let author = author(session: session, name: name)
        localAuthor = author
        return author
    }

    /// The session ended: this client has no author until the next hello.
    mutating func sessionEnded() {
        localAuthor = nil
    }

    /// A new connection: forget every session.
    mutating func removeAll() {
        bySession.removeAll()
    }
}
