import ObservatoryWire

/// What a cluster stores in etcd for one key: the value with its author, and
/// whether the key is session-bound; or, in a deletion marker, only the author.
///
/// Encoded as a small JSON object, `{"value":…,"author":…,"session":…}` with
/// `"sessionBound":true` when it is: etcd keeps bytes, and the version is etcd's
/// `mod_revision`, so it is not stored. `"at"` is the writing node's clock
/// (milliseconds since 1970 UTC) when it made the change, so that every node
/// reports the same time for it in `history`; envelopes written without it read as `nil`.
struct ClusterEnvelope: Equatable, Sendable {
    /// The value, as it was sent; `nil` in a deletion marker.
    var value: EncodedJSON?
    /// Who made the change.
    var author: Author
    /// Whether the key is bound to `author`'s session.
    var sessionBound = false
    /// When the change was made, by the writing node's clock; not compared by `==`.
    var at: Int64?

    /// Equal envelopes: same value, binding, author name and session.
    static func == (lhs: ClusterEnvelope, rhs: ClusterEnvelope) -> Bool {
        lhs.value == rhs.value && lhs.sessionBound == rhs.sessionBound && lhs.author.name == rhs.author.name
            && lhs.author.session == rhs.author.session
    }

    /// The bytes stored in etcd: the value's bytes copied, the rest written as
    /// every build writes it, so nodes of older builds read them.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity((value?.count ?? 0) + 64)
        bytes.append(UInt8(ascii: "{"))
        if let value {
            bytes.append(contentsOf: #""value":"#.utf8)
            value.encode(into: &bytes)
            bytes.append(UInt8(ascii: ","))
        }
        bytes.append(contentsOf: #""author":"#.utf8)
        JSONValue.string(author.name).encode(into: &bytes)
        bytes.append(contentsOf: #","session":"#.utf8)
        JSONValue.string(author.session).encode(into: &bytes)
        if sessionBound { bytes.append(contentsOf: #","sessionBound":true"#.utf8) }
        if let at {
            bytes.append(contentsOf: #","at":"#.utf8)
            JSONValue.integer(at).encode(into: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    /// Reads stored bytes, the value kept as its bytes; `nil` when they are not
    /// an envelope (a foreign value).
    static func decode(_ bytes: [UInt8]) -> ClusterEnvelope? {
        // One level more than a value may have: the envelope's own.
        guard let members = try? EncodedJSON.members(ofObject: bytes, maxDepth: JSONValue.defaultMaxDepth + 1)
        else { return nil }
        // A repeated name keeps its last value, as in a parsed object.
        var value: EncodedJSON?
        var fields: [String: EncodedJSON] = [:]
        for member in members {
            if member.name == "value" { value = member.value } else { fields[member.name] = member.value }
        }
        guard case .string(let name)? = fields["author"]?.decoded(),
            case .string(let session)? = fields["session"]?.decoded()
        else { return nil }
        return ClusterEnvelope(
            value: value, author: Author(name: name, session: session),
            sessionBound: fields["sessionBound"]?.decoded() == .bool(true), at: fields["at"]?.decoded().integerValue)
    }

    /// The entry of `key` this envelope holds at `version`; `nil` for a deletion marker.
    func entry(key: String, version: Int64) -> RawValueEntry? {
        guard let value else { return nil }
        return RawValueEntry(
            key: key, value: value, version: version, author: author.name, session: author.session,
            ephemeral: sessionBound)
    }
}
