/// The answer to a put (write of one key).
public struct EtcdPutResult: Hashable, Sendable {
    /// The answer's header; its revision is the write's.
    public var header: EtcdResponseHeader
    /// The key as it was before, when asked for and the key existed.
    public var previousKeyValue: EtcdKeyValue?

    /// Creates a result.
    public init(header: EtcdResponseHeader, previousKeyValue: EtcdKeyValue? = nil) {
        self.header = header
        self.previousKeyValue = previousKeyValue
    }

    /// Reads a `PutResponse` object.
    init(json: EtcdJSON.Object) throws(EtcdError) {
        let previous = try EtcdJSON.optionalObject(json, "prev_kv")
        var previousKeyValue: EtcdKeyValue?
        if let previous { previousKeyValue = try EtcdKeyValue(json: previous) }
        self.init(header: try EtcdResponseHeader(of: json), previousKeyValue: previousKeyValue)
    }
}
