/// What a request asks for, as ``RawRequest`` decodes it: a `set` or a `batch`
/// with its values as the bytes that were sent (`EncodedJSON`), or any other op
/// as an ``Operation``.
///
/// Only `set` and `batch` carry values in a request, so only they differ from
/// ``Operation``; a server that keeps values as bytes handles them here and
/// hands every other op to the code that handles ``Operation``.
public enum RawOperation: Sendable, Equatable {
    /// Write a key; the fields of ``Operation/set(key:value:ifVersion:sessionBound:requestId:ttl:)``,
    /// with the value checked and kept as sent.
    case set(
        key: String, value: EncodedJSON, ifVersion: Int64?, sessionBound: Bool, requestId: String?, ttl: Int64? = nil)
    /// Apply a batch; the fields of ``Operation/batch(operations:requestId:)``,
    /// with each `set`'s value checked and kept as sent.
    case batch(operations: [BatchOperation<EncodedJSON>], requestId: String?)
    /// Any op but `set` and `batch` (never ``Operation/set(key:value:ifVersion:sessionBound:requestId:ttl:)``
    /// nor ``Operation/batch(operations:requestId:)``).
    case other(Operation)

    /// The op name of this operation.
    public var kind: OperationKind {
        switch self {
        case .set: return .set
        case .batch: return .batch
        case .other(let operation): return operation.kind
        }
    }

    /// The operation with its value decoded into a tree: what
    /// ``Request/decode(frame:limits:)`` returns for the same frame.
    public func decoded() -> Operation {
        switch self {
        case .set(let key, let value, let ifVersion, let sessionBound, let requestId, let ttl):
            return .set(
                key: key, value: value.decoded(), ifVersion: ifVersion, sessionBound: sessionBound,
                requestId: requestId,
                ttl: ttl)
        case .batch(let operations, let requestId):
            return .batch(operations: operations.map { $0.decoded() }, requestId: requestId)
        case .other(let operation):
            return operation
        }
    }
}
