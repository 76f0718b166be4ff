/// The answer to one operation of a transaction.
public indirect enum EtcdOperationResult: Hashable, Sendable {
    /// The keys a range read.
    case range(EtcdRangeResult)
    /// What a put did.
    case put(EtcdPutResult)
    /// What a delete did.
    case deleteRange(EtcdDeleteResult)
    /// What a nested transaction did: which of its branches ran and their answers
    /// (its header is empty: the enclosing transaction's header holds the revision).
    case transaction(EtcdTransactionResult)

    /// Reads a `ResponseOp` object: exactly one of `response_range`,
    /// `response_put`, `response_delete_range`, `response_txn`.
    init(json: EtcdJSON.Object) throws(EtcdError) {
        if let range = try EtcdJSON.optionalObject(json, "response_range") {
            self = .range(try EtcdRangeResult(json: range))
        } else if let put = try EtcdJSON.optionalObject(json, "response_put") {
            self = .put(try EtcdPutResult(json: put))
        } else if let delete = try EtcdJSON.optionalObject(json, "response_delete_range") {
            self = .deleteRange(try EtcdDeleteResult(json: delete))
        } else if let nested = try EtcdJSON.optionalObject(json, "response_txn") {
            self = .transaction(try EtcdTransactionResult(json: nested))
        } else {
            throw EtcdError.invalidResponse("a transaction's response has no known operation: \(json.keys.sorted())")
        }
    }
}
