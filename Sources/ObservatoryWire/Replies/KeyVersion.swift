/// A key and its version: each element of a `list` reply's `keys`.
public struct KeyVersion: Sendable, Hashable {
    /// The key.
    public var key: String
    /// The revision of the key's last change.
    public var version: Int64

    /// Creates a key/version pair.
    public init(key: String, version: Int64) {
        self.key = key
        self.version = version
    }

    /// Appends `{"key":…,"version":…}`.
    func encode(into buffer: inout [UInt8]) {
        JSONWriter.writeLiteral("{\"key\":", into: &buffer)
        JSONWriter.write(key, into: &buffer)
        JSONWriter.writeLiteral(",\"version\":", into: &buffer)
        JSONWriter.write(version, into: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }

    /// Reads the pair from a server message.
    static func decode(from fields: FieldReader<JSONObject>) throws(WireError) -> KeyVersion {
        KeyVersion(key: try fields.requiredString("key"), version: try fields.requiredInteger("version", minimum: 0))
    }
}
