/// The outcome of one operation of a successful `batch`: each element of the
/// reply's `results`, in the order of the batch's `ops`.
public struct BatchResult: Sendable, Hashable {
    /// The operation's key.
    public var key: String
    /// For a change, the batch's revision; for a `set` that changed nothing and
    /// for a `check`, the key's current version (0 when missing).
    public var version: Int64
    /// For a `set`: whether it changed the value (false when it was already
    /// equal). Nil for a `delete` and a `check`, which send no `changed`.
    public var changed: Bool?

    /// Creates a result.
    public init(key: String, version: Int64, changed: Bool? = nil) {
        self.key = key
        self.version = version
        self.changed = changed
    }

    /// Appends `{"key":…,"version":…[,"changed":…]}`.
    func encode(into buffer: inout [UInt8]) {
        JSONWriter.writeLiteral("{\"key\":", into: &buffer)
        JSONWriter.write(key, into: &buffer)
        JSONWriter.writeLiteral(",\"version\":", into: &buffer)
        JSONWriter.write(version, into: &buffer)
        if let changed {
            JSONWriter.writeLiteral(changed ? ",\"changed\":true" : ",\"changed\":false", into: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Reads one result from a server reply.
    static func decode(from fields: FieldReader<JSONObject>) throws(WireError) -> BatchResult {
        BatchResult(
            key: try fields.requiredString("key"), version: try fields.requiredInteger("version", minimum: 0),
            changed: try fields.optionalBool("changed"))
    }
}
