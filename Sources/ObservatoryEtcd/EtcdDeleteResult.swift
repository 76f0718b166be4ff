/// The answer to a delete of a range of keys.
public struct EtcdDeleteResult: Hashable, Sendable {
    /// The answer's header; its revision is the delete's when it deleted anything.
    public var header: EtcdResponseHeader
    /// How many keys were deleted.
    public var deleted: Int64
    /// The deleted keys as they were, when asked for.
    public var previousKeyValues: [EtcdKeyValue]

    /// Creates a result.
    public init(header: EtcdResponseHeader, deleted: Int64, previousKeyValues: [EtcdKeyValue] = []) {
        self.header = header
        self.deleted = deleted
        self.previousKeyValues = previousKeyValues
    }

    /// Reads a `DeleteRangeResponse` object.
    init(json: EtcdJSON.Object) throws(EtcdError) {
        self.init(
            header: try EtcdResponseHeader(of: json), deleted: try EtcdJSON.integer(json, "deleted"),
            previousKeyValues: try EtcdKeyValue.all(json, "prev_kvs"))
    }
}
