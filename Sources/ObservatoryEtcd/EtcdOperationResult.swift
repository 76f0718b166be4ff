/// The answer to one operation of a transaction.
public enum EtcdOperationResult: Hashable, Sendable {
    /// The keys a range read.
    case range(EtcdRangeResult)
    /// What a put did.
    case put(EtcdPutResult)
    /// What a delete did.
    case deleteRange(EtcdDeleteResult)

    /// Reads a `ResponseOp` object: exactly one of `response_range`,
    /// `response_put`, `response_delete_range`.
    init(json: EtcdJSON.Object) throws(EtcdError) {
        if let range = try EtcdJSON.optionalObject(json, "response_range") {
            self = .range(try EtcdRangeResult(json: range))
        } else if let put = try EtcdJSON.optionalObject(json, "response_put") {
            self = .put(try EtcdPutResult(json: put))
        } else if let delete = try EtcdJSON.optionalObject(json, "response_delete_range") {
            self = .deleteRange(try EtcdDeleteResult(json: delete))
        } else {
            throw EtcdError.invalidResponse("a transaction's response has no known operation: \(json.keys.sorted())")
        }
    }
}
