/// A key with its value and the identity of its last change: a `get` reply's
/// fields and each element of an `observe` reply's `values`.
///
/// Generic over how the value is held, as ``ServerEvent`` is, so that both kinds
/// of entries are one type with one encoding: ``ValueEntry`` carries a
/// `JSONValue` (what clients decode), ``RawValueEntry`` carries `EncodedJSON`
/// (what a server that keeps values as bytes stores and answers with, copying the
/// value as it was sent).
///
/// The initializers and accessors are inlinable, so that a store in another
/// module copies its entries as the plain values they are, not through the
/// generic type's metadata.
public struct KeyEntry<Value: JSONWritable>: Sendable, Equatable {
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
    public var sessionBound: Bool
    /// When the key expires, for an expiring key (`"ttl"` on the wire); `nil` for a lasting one.
    public var expiration: EntryExpiration?

    /// Creates an entry; `ttl`, for an expiring key, is the whole seconds it has
    /// left (as a message carries it).
    @inlinable
    public init(
        key: String, value: Value, version: Int64, author: String, session: String, sessionBound: Bool = false,
        ttl: Int64? = nil
    ) {
        self.key = key
        self.value = value
        self.version = version
        self.author = author
        self.session = session
        self.sessionBound = sessionBound
        expiration = ttl.map { .secondsLeft($0) }
    }

    /// Creates an entry whose expiry, for an expiring key, is kept as a server
    /// keeps it: the deadline and who set it.
    @inlinable
    public init(
        key: String, value: Value, version: Int64, author: String, session: String, sessionBound: Bool = false,
        expiry: KeyExpiry?
    ) {
        self.init(
            key: key, value: value, version: version, author: author, session: session, sessionBound: sessionBound)
        expiration = expiry.map { .deadline($0) }
    }

    /// For an expiring key, the whole seconds it has left: as the message said, or
    /// for an entry a server keeps, as its deadline says now (rounded up). Setting
    /// it makes the entry carry those seconds; `nil` for a lasting key.
    @inlinable
    public var ttl: Int64? {
        get {
            switch expiration {
            case .secondsLeft(let seconds)?: seconds
            case .deadline(let expiry)?: expiry.secondsLeft(now: KeyExpiry.wallMilliseconds())
            case nil: nil
            }
        }
        set { expiration = newValue.map { .secondsLeft($0) } }
    }

    /// For an expiring key that a server keeps, its deadline and who set it;
    /// `nil` for a lasting key and for seconds read from a message. Setting it
    /// makes the entry carry that expiry.
    @inlinable
    public var expiry: KeyExpiry? {
        get {
            guard case .deadline(let expiry)? = expiration else { return nil }
            return expiry
        }
        set { expiration = newValue.map { .deadline($0) } }
    }

    /// Appends `"key":…,"value":…,"version":…,"author":…,"session":…` and
    /// `"ephemeral":true` for a session-bound key and `"ttl"` for an expiring one
    /// (no braces), copying an `EncodedJSON` value as it is.
    func encodeFields(into buffer: inout [UInt8]) {
        JSONWriter.writeEntryFields(
            key: key, value: value, version: version, author: author, session: session, sessionBound: sessionBound,
            ttl: ttl, into: &buffer)
    }
}

extension KeyEntry: Hashable where Value: Hashable {}

extension KeyEntry where Value == JSONValue {
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

/// An entry whose value is a `JSONValue`: what clients decode from `get` and
/// `observe` replies.
public typealias ValueEntry = KeyEntry<JSONValue>

/// An entry whose value is `EncodedJSON`, kept and copied as it was sent: what a
/// server that keeps values as bytes holds (with its ``KeyEntry/expiry``) and answers with.
public typealias RawValueEntry = KeyEntry<EncodedJSON>
