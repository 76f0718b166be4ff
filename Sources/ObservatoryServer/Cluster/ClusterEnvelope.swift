import ObservatoryWire

/// What a cluster stores in etcd for one key: the value with its author, and
/// whether the key is session-bound; or, in a deletion marker, only the author.
///
/// Encoded as a small JSON object, `{"value":…,"author":…,"session":…}` with
/// `"sessionBound":true` when it is: etcd keeps bytes, and the version is etcd's
/// `mod_revision`, so it is not stored. `"at"` is the writing node's clock
/// (milliseconds since 1970 UTC) when it made the change, so that every node
/// reports the same time for it in `history`; envelopes written without it read as `nil`.
///
/// An expiring key's envelope also holds its expiry: `"ttl"`, `"deadline"`
/// (milliseconds since 1970) and `"expiryAuthor"`/`"expirySession"`, the write
/// that set it, who the expired delete is in the name of. A put that only
/// restarts the clock of an unchanged value carries `"version"`, the key's
/// version before it: the key keeps it, and nodes announce no change
/// (`ClusterChange.restart`). A deletion marker of an expired key carries
/// `"expired":true`.
struct ClusterEnvelope: Equatable, Sendable {
    /// The value, as it was sent; `nil` in a deletion marker.
    var value: EncodedJSON?
    /// Who made the change.
    var author: Author
    /// Whether the key is bound to `author`'s session.
    var sessionBound = false
    /// When the key expires, if it does.
    var expiry: KeyExpiry?
    /// The key's version, kept by a put that only restarts its clock; `nil` otherwise.
    var version: Int64?
    /// Whether a deletion marker deletes an expired key.
    var expired = false
    /// When the change was made, by the writing node's clock; not compared by `==`.
    var at: Int64?

    /// Equal envelopes: same value, binding, author name and session, expiry and markers.
    static func == (lhs: ClusterEnvelope, rhs: ClusterEnvelope) -> Bool {
        lhs.value == rhs.value && lhs.sessionBound == rhs.sessionBound && lhs.author.name == rhs.author.name
            && lhs.author.session == rhs.author.session && lhs.expiry == rhs.expiry && lhs.version == rhs.version
            && lhs.expired == rhs.expired
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
        if let expiry {
            bytes.append(
                contentsOf: ",\"ttl\":\(expiry.seconds),\"deadline\":\(expiry.deadline),\"expiryAuthor\":".utf8)
            JSONValue.string(expiry.author).encode(into: &bytes)
            bytes.append(contentsOf: #","expirySession":"#.utf8)
            JSONValue.string(expiry.session).encode(into: &bytes)
        }
        if let version { bytes.append(contentsOf: ",\"version\":\(version)".utf8) }
        if expired { bytes.append(contentsOf: #","expired":true"#.utf8) }
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
        var expiry: KeyExpiry?
        if case .integer(let seconds)? = fields["ttl"]?.decoded(),
            case .integer(let deadline)? = fields["deadline"]?.decoded(),
            case .string(let expiryAuthor)? = fields["expiryAuthor"]?.decoded(),
            case .string(let expirySession)? = fields["expirySession"]?.decoded()
        {
            expiry = KeyExpiry(seconds: seconds, deadline: deadline, author: expiryAuthor, session: expirySession)
        }
        var version: Int64?
        if case .integer(let kept)? = fields["version"]?.decoded() { version = kept }
        return ClusterEnvelope(
            value: value, author: Author(name: name, session: session),
            sessionBound: fields["sessionBound"]?.decoded() == .bool(true), expiry: expiry, version: version,
            expired: fields["expired"]?.decoded() == .bool(true), at: fields["at"]?.decoded().integerValue)
    }

    /// The entry of `key` this envelope holds, stored at `modRevision`: its
    /// version is that, or the one a restart of its clock kept; `nil` for a deletion marker.
    func entry(key: String, version modRevision: Int64) -> RawValueEntry? {
        guard let value else { return nil }
        return RawValueEntry(
            key: key, value: value, version: version ?? modRevision, author: author.name, session: author.session,
            sessionBound: sessionBound, expiry: expiry)
    }
}
