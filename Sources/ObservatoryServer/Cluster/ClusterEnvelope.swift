import ObservatoryWire

/// What a cluster stores in etcd for one key: the value with its author, and
/// whether the key is session-bound; or, in a deletion marker, only the author.
///
/// Encoded as a small JSON object, `{"value":…,"author":…,"session":…}` with
/// `"sessionBound":true` when it is: etcd keeps bytes, and the version is etcd's
/// `mod_revision`, so it is not stored.
struct ClusterEnvelope: Equatable, Sendable {
    /// The value; `nil` in a deletion marker.
    var value: JSONValue?
    /// Who made the change.
    var author: Author
    /// Whether the key is bound to `author`'s session.
    var sessionBound = false

    /// Equal envelopes: same value, binding, author name and session.
    static func == (lhs: ClusterEnvelope, rhs: ClusterEnvelope) -> Bool {
        lhs.value == rhs.value && lhs.sessionBound == rhs.sessionBound && lhs.author.name == rhs.author.name
            && lhs.author.session == rhs.author.session
    }

    /// The bytes stored in etcd.
    func encoded() -> [UInt8] {
        var members: [(String, JSONValue)] = []
        if let value { members.append(("value", value)) }
        members.append(("author", .string(author.name)))
        members.append(("session", .string(author.session)))
        if sessionBound { members.append(("sessionBound", .bool(true))) }
        return JSONValue.object(JSONObject(members)).encoded()
    }

    /// Reads stored bytes; `nil` when they are not an envelope (a foreign value).
    static func decode(_ bytes: [UInt8]) -> ClusterEnvelope? {
        // One level more than a value may have: the envelope's own.
        guard let object = try? JSONValue.parse(bytes, maxDepth: JSONValue.defaultMaxDepth + 1),
            case .string(let name)? = object["author"], case .string(let session)? = object["session"]
        else { return nil }
        return ClusterEnvelope(
            value: object["value"], author: Author(name: name, session: session),
            sessionBound: object["sessionBound"] == .bool(true))
    }

    /// The entry of `key` this envelope holds at `version`; `nil` for a deletion marker.
    func entry(key: String, version: Int64) -> ValueEntry? {
        guard let value else { return nil }
        return ValueEntry(
            key: key, value: value, version: version, author: author.name, session: author.session,
            ephemeral: sessionBound)
    }
}
