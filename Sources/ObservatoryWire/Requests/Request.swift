/// One client request: an optional id and the operation.
///
/// The server decodes every frame with ``decode(frame:limits:)``; the client
/// library sends requests with ``encoded()``.
///
/// ```swift
/// switch Request.decode(frame: line, limits: .default) {
/// case .success(let request): handle(request)
/// case .failure(let rejection): send(rejection.reply.encoded())
/// }
/// ```
public struct Request: Sendable, Equatable {
    /// The id to echo in the reply, if the client sent one.
    public var id: RequestID?
    /// What the request asks for.
    public var operation: Operation

    /// Creates a request.
    public init(id: RequestID?, operation: Operation) {
        self.id = id
        self.operation = operation
    }

    /// Decodes one frame (a line without its LF) exactly as docs/protocol.md prescribes.
    ///
    /// - not a JSON object (not JSON, invalid UTF-8, nested deeper than
    ///   `limits.maxDepth`, an array, a number, …): `bad_frame`, id `nil`;
    /// - `id` present but neither a string nor an integer literal (`null`
    ///   included: docs/protocol.md allows no other type): `bad_request`, id `nil`;
    /// - `op` missing or not a string: `bad_request`, id echoed;
    /// - `op` unknown: `unknown_op`; a field missing or ill-typed: `bad_request`
    ///   naming the field; a bad key or prefix: `invalid_key`; a `set` value longer
    ///   than `limits.maxValueBytes` when encoded: `value_too_large`.
    ///
    /// Unknown fields are ignored; optional fields other than `id` set to `null` count as absent;
    /// `ifVersion` and `protocol` accept whole numbers written as `2.0`.
    public static func decode(frame: some Collection<UInt8>, limits: RequestLimits = .default) -> Result<
        Request, RequestRejection
    > {
        // The same closure, written out for each branch: kept in a variable, it
        // was allocated at every call (350 instructions a request, in callgrind).
        // The fields borrow the frame's bytes, so the request is made within.
        frame.withContiguousStorageIfAvailable { bytes in decode(bytes, limits: limits) }
            ?? Array(frame).withUnsafeBufferPointer { bytes in decode(bytes, limits: limits) }
    }

    private static func decode(_ frame: UnsafeBufferPointer<UInt8>, limits: RequestLimits) -> Result<
        Request, RequestRejection
    > {
        let fields: RequestFields
        do throws(RequestRejection) {
            fields = try readFields(of: frame, limits: limits, keepsValueBytes: false)
        } catch {
            return .failure(error)
        }
        return decodeFields(fields) { (id, kind, reader) throws(WireError) in
            Request(
                id: id,
                operation: try Operation.decode(kind, from: reader, limits: limits, frameByteCount: frame.count))
        }
    }

    /// Decodes a request from an already parsed object; see ``decode(frame:limits:)``.
    public static func decode(object: JSONObject, limits: RequestLimits = .default) -> Result<Request, RequestRejection>
    {
        decodeFields(RequestFields(object)) { (id, kind, reader) throws(WireError) in
            Request(id: id, operation: try Operation.decode(kind, from: reader, limits: limits, frameByteCount: nil))
        }
    }

    /// Reads a frame's fields; a frame that is not a JSON object is `bad_frame`.
    /// The fields borrow `frame`: decode them while it lives.
    static func readFields(of frame: UnsafeBufferPointer<UInt8>, limits: RequestLimits, keepsValueBytes: Bool)
        throws(RequestRejection) -> RequestFields
    {
        let fields: RequestFields
        do {
            fields = try RequestFields(parsing: frame, maxDepth: limits.maxDepth, keepsValueBytes: keepsValueBytes)
        } catch {
            throw RequestRejection(id: nil, error: .badFrame(error.description))
        }
        if let value = fields.nonObject {
            throw RequestRejection(id: nil, error: .badFrame("got \(value.kindDescription)"))
        }
        return fields
    }

    /// Checks `id` and `op`, then has `decodeRequest` read the op's fields and
    /// make the request: the steps and errors that every way of decoding a request shares.
    static func decodeFields<Decoded>(
        _ source: RequestFields,
        decodeRequest: (RequestID?, OperationKind, FieldReader<RequestFields>) throws(WireError) -> Decoded
    ) -> Result<Decoded, RequestRejection> {
        let fields = FieldReader(source, errorCode: .badRequest)
        let id: RequestID?
        switch source.value(of: .id) {
        case nil: id = nil
        case .string(let string)?: id = .string(string)
        case .integer(let integer)?: id = .integer(integer)
        case let other?:
            let error = fields.failure(.id, "must be a string or an integer, got \(other.kindDescription)")
            return .failure(RequestRejection(id: nil, error: error))
        }
        do throws(WireError) {
            return .success(try decodeRequest(id, try operationKind(of: source, fields), fields))
        } catch {
            return .failure(RequestRejection(id: id, error: error))
        }
    }

    /// The op a request names; a plain string is matched as its bytes, without making a `String`.
    private static func operationKind(of source: RequestFields, _ fields: FieldReader<RequestFields>)
        throws(WireError) -> OperationKind
    {
        if let bytes = source.plainString(.op), let kind = OperationKind.named(bytes) {
            return kind
        }
        let name = try fields.requiredString(.op)
        guard let kind = OperationKind.named(name) else {
            throw WireError.unknownOperation(name)
        }
        return kind
    }

    /// The request as one compact JSON object, without the LF:
    /// `{"id":7,"op":"set","key":"k","value":1}` (no `"id"` when there is none).
    public func encoded() -> [UInt8] {
        FrameBuilder.object { encode(into: &$0) }
    }

    /// The request as one frame: ``encoded()`` followed by the LF that ends it.
    public func encodedLine() -> [UInt8] {
        FrameBuilder.line { encode(into: &$0) }
    }

    /// Appends the request as in ``encoded()``.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
        if let id {
            JSONWriter.writeLiteral("\"id\":", into: &buffer)
            RequestID.write(id, into: &buffer)
            buffer.append(UInt8(ascii: ","))
        }
        JSONWriter.writeLiteral("\"op\":", into: &buffer)
        JSONWriter.write(operation.kind.rawValue, into: &buffer)
        operation.encodeFields(into: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }
}
