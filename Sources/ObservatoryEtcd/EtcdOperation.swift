/// One request that can stand alone or be a step of a transaction: a read, a
/// write or a delete.
public enum EtcdOperation: Hashable, Sendable {
    /// Reads the keys of `range`; at `revision` (0: the latest), at most `limit`
    /// keys (0: all).
    case range(EtcdKeyRange, revision: Int64 = 0, limit: Int64 = 0)
    /// Writes `value` at `key`, attached to `lease` (0: none); with
    /// `returnPrevious`, the answer has the key as it was.
    case put(key: [UInt8], value: [UInt8], lease: Int64 = 0, returnPrevious: Bool = false)
    /// Deletes the keys of `range`; with `returnPrevious`, the answer has them as they were.
    case deleteRange(EtcdKeyRange, returnPrevious: Bool = false)

    /// Whether the operation changes data (a timeout then may have applied it).
    var isWrite: Bool {
        if case .range = self { return false }
        return true
    }

    /// The request object, as sent alone to `/v3/kv/range`, `/v3/kv/put` or
    /// `/v3/kv/deleterange`, or inside a transaction's `request_…` field.
    var requestObject: EtcdJSON.Object {
        var object: EtcdJSON.Object = [:]
        switch self {
        case .range(let range, let revision, let limit):
            range.write(into: &object)
            if revision != 0 { object["revision"] = EtcdJSON.text(revision) }
            if limit != 0 { object["limit"] = EtcdJSON.text(limit) }
        case .put(let key, let value, let lease, let returnPrevious):
            object["key"] = EtcdJSON.base64(key)
            object["value"] = EtcdJSON.base64(value)
            if lease != 0 { object["lease"] = EtcdJSON.text(lease) }
            if returnPrevious { object["prev_kv"] = true }
        case .deleteRange(let range, let returnPrevious):
            range.write(into: &object)
            if returnPrevious { object["prev_kv"] = true }
        }
        return object
    }

    /// The operation as a `RequestOp` of a transaction.
    var transactionObject: EtcdJSON.Object {
        switch self {
        case .range: ["request_range": requestObject]
        case .put: ["request_put": requestObject]
        case .deleteRange: ["request_delete_range": requestObject]
        }
    }
}
