/// One client request whose `set` value is kept as the bytes that were sent,
/// for a server that stores and forwards values without building trees.
///
/// ``decode(frame:limits:)`` accepts and rejects exactly the frames that
/// ``Request/decode(frame:limits:)`` does, with the same replies; only the values
/// of a `set` and of a `batch`'s operations come back as `EncodedJSON` (checked,
/// never built into a `JSONValue`).
///
/// ```swift
/// switch RawRequest.decode(frame: line, limits: limits) {
/// case .success(let request):
///     switch request.operation {
///     case .set(let key, let value, let ifVersion, let sessionBound, let requestId, let ttl): store(key, value)
///     case .other(let operation): handle(operation)
///     }
/// case .failure(let rejection): send(rejection.reply.encoded())
/// }
/// ```
public struct RawRequest: Sendable, Equatable {
    /// The id to echo in the reply, if the client sent one.
    public var id: RequestID?
    /// What the request asks for.
    public var operation: RawOperation

    /// Creates a request.
    public init(id: RequestID?, operation: RawOperation) {
        self.id = id
        self.operation = operation
    }

    /// The request with its value decoded: what ``Request/decode(frame:limits:)``
    /// returns for the same frame.
    public var decoded: Request {
        Request(id: id, operation: operation.decoded())
    }

    /// Decodes one frame (a line without its LF) as ``Request/decode(frame:limits:)``
    /// does, with the same errors in the same order, except that the values of a
    /// `set` and of a `batch`'s operations are validated and copied as their bytes
    /// instead of being parsed into trees.
    ///
    /// `value_too_large` follows the same rule: the limit applies to the value's
    /// compact encoding (what `JSONValue/encode(into:)` writes), not to the bytes
    /// as sent. Frames of at most `limits.maxValueBytes / 8` bytes cannot hold a
    /// value over the limit and are not measured; larger ones are measured by
    /// decoding the value, as the tree decoder does. So a stored value can take
    /// more bytes than `maxValueBytes` (spaces inside it, escapes such as
    /// `\u0041`), at most the frame's size: count `EncodedJSON/count` for memory.
    public static func decode(frame: some Collection<UInt8>, limits: RequestLimits = .default) -> Result<
        RawRequest, RequestRejection
    > {
        frame.withContiguousStorageIfAvailable { bytes in decode(bytes, limits: limits) }
            ?? Array(frame).withUnsafeBufferPointer { bytes in decode(bytes, limits: limits) }
    }

    private static func decode(_ frame: UnsafeBufferPointer<UInt8>, limits: RequestLimits) -> Result<
        RawRequest, RequestRejection
    > {
        // Read without a `Result` around them: the fields are large, and each wrapping copied them.
        let source: RequestFields
        do throws(RequestRejection) {
            source = try Request.readFields(of: frame, limits: limits, keepsValueBytes: true)
        } catch {
            return .failure(error)
        }
        // Taken out here so that the closure below captures a range, not a copy of the fields.
        let valueBytes = source.valueBytes
        let batchElements = source.batchElements
        return Request.decodeFields(source) { (id, kind, fields) throws(WireError) in
            if kind == .batch {
                let operations = try BatchOperation<EncodedJSON>.decodeAll(
                    batchElements, from: fields, limits: limits, frameByteCount: frame.count)
                return RawRequest(
                    id: id,
                    operation: .batch(operations: operations, requestId: try Operation.requestId(from: fields)))
            }
            guard kind == .set else {
                return RawRequest(
                    id: id,
                    operation: .other(
                        try Operation.decode(kind, from: fields, limits: limits, frameByteCount: frame.count)))
            }
            let set = try Operation.decodeSet(
                from: fields,
                readValue: { () throws(WireError) in
                    guard let range = valueBytes else {
                        throw fields.failure(.value, FieldReader<RequestFields>.requiredValueProblem)
                    }
                    // Copied from the buffer in one step (`Array(frame[range])` goes element by element).
                    return EncodedJSON(validatedBytes: Array(UnsafeBufferPointer(rebasing: frame[range])))
                },
                checkSize: { (value) throws(WireError) in
                    try Operation.checkSize(limit: limits.maxValueBytes, frameByteCount: frame.count) {
                        value.canonicalCount
                    }
                })
            return RawRequest(
                id: id,
                operation: .set(
                    key: set.key, value: set.value, ifVersion: set.ifVersion, sessionBound: set.sessionBound,
                    requestId: set.requestId, ttl: set.ttl))
        }
    }
}
