/// A key with its value and the identity of its last change: a `get` reply's
/// fields and each element of an `observe` reply's `values`.
public struct ValueEntry: Sendable, Hashable {
    /// The key.
    public var key: String
    /// The current value.
    public var value: JSONValue
    /// The revision of the key's last change.
    public var version: Int64
    /// The author name of the last change.
    public var author: String
    /// The session id of the connection that made the last change.
    public var session: String
    /// Whether the key is bound to that session: the server deletes it when the
    /// session ends (`"ephemeral":true` on the wire, absent otherwise).
    public var sessionBound: Bool
    /// For an expiring key, the whole seconds it had left when the server made
    /// the message (`"ttl"` on the wire); `nil` for a lasting key.
    public var ttl: Int64?

    /// Creates an entry.
    public init(
        key: String, value: JSONValue, version: Int64, author: String, session: String, sessionBound: Bool = false,
        ttl: Int64? = nil
    ) {
        self.key = key
        self.value = value
        self.version = version
        self.author = author
        self.session = session
        self.sessionBound = sessionBound
        self.ttl = ttl
    }

    /// Appends `"key":…,"value":…,"version":…,"author":…,"session":…` and
    /// `"ephemeral":true` for a session-bound key and `"ttl"` for an expiring one (no braces).
    func encodeFields(into buffer: inout [UInt8]) {
        JSONWriter.writeEntryFields(
            key: key, value: value, version: version, author: author, session: session, sessionBound: sessionBound,
            ttl: ttl, into: &buffer)
    }

    /// Reads the entry's fields from a server message.
    static func decode(from fields: FieldReader<JSONObject>) throws(WireError) -> ValueEntry {
        ValueEntry(
            key: try fields.requiredString("key"),
            value: try fields.requiredValue("value"),
            version: try fields.requiredInteger("version", minimum: 0),
            author: try fields.requiredString("author"),
            session: try fields.requiredString("session"),
            sessionBound: try fields.optionalBool("ephemeral") ?? false,
            ttl: try fields.optionalInteger("ttl", minimum: 0)
        )
    }
}
