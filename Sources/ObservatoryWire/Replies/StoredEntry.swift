/// A key with its value and the identity of its last change: a `get` reply's
/// fields and each element of an `observe` reply's `values`.
///
/// Generic over how the value is held, so that both kinds of entries are one
/// type with one encoding: ``ValueEntry`` holds a ``JSONValue`` (what clients
/// decode and the store keeps), ``RawValueEntry`` an ``EncodedJSON`` (what a
/// server that keeps values as bytes answers with; the value's bytes are
/// copied as they were sent).
public struct StoredEntry<Value: JSONWritable>: Sendable, Equatable {
    /// The key.
    public var key: String
    /// The current value.
    public var value: Value
    /// The revision of the key's last change.
    public var version: Int64
    /// The author name of the last change.
    public var author: String
    /// The session id of the connection that made the last change.
    public var session: String
    /// Whether the key is bound to that session: the server deletes it when the
    /// session ends (`"ephemeral":true` on the wire, absent otherwise).
    public var ephemeral: Bool

    /// Creates an entry.
    public init(
        key: String, value: Value, version: Int64, author: String, session: String, ephemeral: Bool = false
    ) {
        self.key = key
        self.value = value
        self.version = version
        self.author = author
        self.session = session
        self.ephemeral = ephemeral
    }

    /// Appends `"key":…,"value":…,"version":…,"author":…,"session":…` and
    /// `"ephemeral":true` for a session-bound key (no braces).
    func encodeFields(into buffer: inout [UInt8]) {
        JSONWriter.writeEntryFields(
            key: key, value: value, version: version, author: author, session: session, ephemeral: ephemeral,
            into: &buffer)
    }
}

extension StoredEntry: Hashable where Value: Hashable {}

/// An entry whose value is a ``JSONValue``: what a `get` reply and an `observe`
/// snapshot carry for clients, and what the store keeps.
public typealias ValueEntry = StoredEntry<JSONValue>

/// An entry whose value is ``EncodedJSON``: what a server that keeps values as
/// bytes answers a `get` with, and lists in an `observe` snapshot (see ``RawReply``).
public typealias RawValueEntry = StoredEntry<EncodedJSON>

extension StoredEntry where Value == JSONValue {
    /// Reads the entry's fields from a server message.
    static func decode(from fields: FieldReader<JSONObject>) throws(WireError) -> ValueEntry {
        ValueEntry(
            key: try fields.requiredString("key"),
            value: try fields.requiredValue("value"),
            version: try fields.requiredInteger("version", minimum: 0),
            author: try fields.requiredString("author"),
            session: try fields.requiredString("session"),
            ephemeral: try fields.optionalBool("ephemeral") ?? false
        )
    }
}
