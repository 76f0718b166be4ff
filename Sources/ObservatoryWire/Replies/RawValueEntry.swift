/// A key with its value as `EncodedJSON` and the identity of its last change:
/// what a server that keeps values as bytes answers a `get` with, and lists in
/// an `observe` snapshot (see ``RawReply``).
///
/// Its encoding is ``ValueEntry``'s, with the value's bytes copied as they are.
public struct RawValueEntry: Sendable, Equatable {
    /// The key.
    public var key: String
    /// The current value, as it was sent.
    public var value: EncodedJSON
    /// The revision of the key's last change.
    public var version: Int64
    /// The author name of the last change.
    public var author: String
    /// The session id of the connection that made the last change.
    public var session: String
    /// Whether the key is bound to that session (`"ephemeral":true` on the wire, absent otherwise).
    public var sessionBound: Bool
    /// When the key expires, for an expiring key; `nil` for a lasting one. The
    /// encoding carries `"ttl"`, the seconds left when it is made.
    public var expiry: KeyExpiry?

    /// Creates an entry.
    public init(
        key: String, value: EncodedJSON, version: Int64, author: String, session: String, sessionBound: Bool = false,
        expiry: KeyExpiry? = nil
    ) {
        self.key = key
        self.value = value
        self.version = version
        self.author = author
        self.session = session
        self.sessionBound = sessionBound
        self.expiry = expiry
    }

    /// Appends the fields as ``ValueEntry`` does (no braces), with `"ttl"` as
    /// the seconds left now for an expiring key.
    func encodeFields(into buffer: inout [UInt8]) {
        JSONWriter.writeEntryFields(
            key: key, value: value, version: version, author: author, session: session, sessionBound: sessionBound,
            ttl: expiry.map { $0.secondsLeft(now: KeyExpiry.wallMilliseconds()) }, into: &buffer)
    }
}
