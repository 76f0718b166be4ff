import ObservatoryJSON

/// One request that can stand alone or be a step of a transaction: a read, a
/// write, a delete, or (inside a transaction only) a nested transaction.
public indirect enum EtcdOperation: Hashable, Sendable {
    /// Reads the keys of `range`; at `revision` (0: the latest), at most `limit`
    /// keys (0: all).
    case range(EtcdKeyRange, revision: Int64 = 0, limit: Int64 = 0)
    /// Writes `value` at `key`, attached to `lease` (0: none); with
    /// `returnPrevious`, the answer has the key as it was.
    case put(key: [UInt8], value: [UInt8], lease: Int64 = 0, returnPrevious: Bool = false)
    /// Deletes the keys of `range`; with `returnPrevious`, the answer has them as they were.
    case deleteRange(EtcdKeyRange, returnPrevious: Bool = false)
    /// Runs a transaction of its own, with its own compares and branches, as a
    /// step of the enclosing transaction's branch (etcd 3.3 and later): several
    /// independent conditional writes then commit together, at one revision.
    /// Nested transactions of one branch must not write the same key.
    case transaction(EtcdTransaction)

    /// Whether the operation changes data (a timeout then may have applied it).
    var isWrite: Bool {
        switch self {
        case .range: false
        case .put, .deleteRange: true
        case .transaction(let transaction): transaction.isWrite
        }
    }

    /// The request object, as sent alone to `/v3/kv/range`, `/v3/kv/put`,
    /// `/v3/kv/deleterange` or `/v3/kv/txn`, or inside a transaction's `request_…` field.
    var requestObject: EtcdJSON.Object {
        switch self {
        case .range(let range, let revision, let limit):
            EtcdJSON.object(
                range.members + [
                    ("revision", revision != 0 ? EtcdJSON.text(revision) : nil),
                    ("limit", limit != 0 ? EtcdJSON.text(limit) : nil),
                ])
        case .put(let key, let value, let lease, let returnPrevious):
            EtcdJSON.object([
                ("key", EtcdJSON.base64(key)), ("value", EtcdJSON.base64(value)),
                ("lease", lease != 0 ? EtcdJSON.text(lease) : nil), ("prev_kv", returnPrevious ? true : nil),
            ])
        case .deleteRange(let range, let returnPrevious):
            EtcdJSON.object(range.members + [("prev_kv", returnPrevious ? true : nil)])
        case .transaction(let transaction):
            transaction.requestObject
        }
    }

    /// The operation as a `RequestOp` of a transaction.
    var transactionObject: EtcdJSON.Object {
        switch self {
        case .range: ["request_range": .object(requestObject)]
        case .put: ["request_put": .object(requestObject)]
        case .deleteRange: ["request_delete_range": .object(requestObject)]
        case .transaction: ["request_txn": .object(requestObject)]
        }
    }
}
