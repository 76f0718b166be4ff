/// The answer to a range (read): the keys found, in key order.
public struct EtcdRangeResult: Hashable, Sendable {
    /// The answer's header; its revision is the one the keys were read at.
    public var header: EtcdResponseHeader
    /// The keys found, at most `limit` of them when the request had one.
    public var keyValues: [EtcdKeyValue]
    /// How many keys the range holds (more than `keyValues.count` when limited).
    public var count: Int64
    /// Whether a limit left keys out.
    public var more: Bool

    /// Creates a result.
    public init(header: EtcdResponseHeader, keyValues: [EtcdKeyValue], count: Int64, more: Bool = false) {
        self.header = header
        self.keyValues = keyValues
        self.count = count
        self.more = more
    }

    /// Reads a `RangeResponse` object.
    init(json: EtcdJSON.Object) throws(EtcdError) {
        self.init(
            header: try EtcdResponseHeader(of: json), keyValues: try EtcdKeyValue.all(json, "kvs"),
            count: try EtcdJSON.integer(json, "count"), more: try EtcdJSON.boolean(json, "more"))
    }
}
