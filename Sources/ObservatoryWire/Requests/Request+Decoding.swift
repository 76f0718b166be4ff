extension Request where Value == EncodedJSON {
    /// Decodes one frame (a line without its LF) exactly as docs/protocol.md
    /// prescribes, with the values of a `set` and of a `batch`'s sets as the
    /// bytes that were sent: what the server stores and forwards.
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
    ///
    /// `value_too_large` applies to the value's compact encoding (what
    /// `JSONValue/encode(into:)` writes), not to the bytes as sent. Frames of at
    /// most `limits.maxValueBytes / 8` bytes cannot hold a value over the limit
    /// and are not measured. So a stored value can take more bytes than
    /// `maxValueBytes` (spaces inside it, escapes such as `\u0041`), at most the
    /// frame's size: count `EncodedJSON/count` for memory.
    public static func decode(frame: some Collection<UInt8>, limits: RequestLimits = .default) -> Result<
        Request, RequestRejection
    > {
        // The same closure, written out for each branch: kept in a variable, it
        // was allocated at every call (350 instructions a request, in callgrind).
        // The fields borrow the frame's bytes, so the request is made within.
        frame.withContiguousStorageIfAvailable { bytes in decodeQuickly(bytes, limits: limits) }
            ?? Array(frame).withUnsafeBufferPointer { bytes in decodeQuickly(bytes, limits: limits) }
    }

    /// Decodes one frame held in a buffer, as `decode(frame:limits:)` for any collection
    /// does: the server's call, concrete so that it goes through no generic
    /// collection nor the metadata of its result (a frame's bytes are at hand in
    /// its input buffer).
    public static func decode(frame: UnsafeBufferPointer<UInt8>, limits: RequestLimits = .default) -> Result<
        Request, RequestRejection
    > {
        decodeQuickly(frame, limits: limits)
    }

    /// The usual `set` is read by ``CompactSetReader`` alone, or by
    /// ``QuickSetReader`` when spelled otherwise; every other frame, and any
    /// they cannot decide, by the one request decoder.
    private static func decodeQuickly(_ frame: UnsafeBufferPointer<UInt8>, limits: RequestLimits) -> Result<
        Request, RequestRejection
    > {
        if let request = CompactSetReader.request(in: frame, limits: limits)
            ?? QuickSetReader.request(in: frame, limits: limits)
        {
            return .success(request)
        }
        return decodeFrame(frame, limits: limits)
    }

    /// The request with its values decoded into trees: what
    /// `Request<JSONValue>.decode(frame:limits:)` returns for the same frame.
    public var decoded: Request<JSONValue> {
        Request<JSONValue>(id: id, operation: operation.decoded(), kind: kind)
    }
}

extension Request where Value == JSONValue {
    /// Decodes one frame as `Request<EncodedJSON>.decode(frame:limits:)` does,
    /// with the same errors in the same order, and each value built into a tree.
    public static func decode(frame: some Collection<UInt8>, limits: RequestLimits = .default) -> Result<
        Request, RequestRejection
    > {
        frame.withContiguousStorageIfAvailable { bytes in decodeFrame(bytes, limits: limits) }
            ?? Array(frame).withUnsafeBufferPointer { bytes in decodeFrame(bytes, limits: limits) }
    }

    /// Decodes a request from an already parsed object, with the rules of
    /// `decode(frame:limits:)` (every value is measured: there is no frame).
    public static func decode(object: JSONObject, limits: RequestLimits = .default) -> Result<Request, RequestRejection>
    {
        decode(RequestFields(object), limits: limits, frameByteCount: nil)
    }
}

extension Request where Value: RequestValue {
    /// The one request decoder: reads a frame's fields in one pass, then the
    /// request from them. The fields borrow `frame`, so the request is made within.
    static func decodeFrame(_ frame: UnsafeBufferPointer<UInt8>, limits: RequestLimits) -> Result<
        Request, RequestRejection
    > {
        // Read without a `Result` around them: the fields are large, and each wrapping copied them.
        let fields: RequestFields
        do throws(RequestRejection) {
            fields = try readFields(of: frame, limits: limits)
        } catch {
            return .failure(error)
        }
        return decode(fields, limits: limits, frameByteCount: frame.count)
    }

    /// Reads a frame's fields; a frame that is not a JSON object is `bad_frame`.
    private static func readFields(of frame: UnsafeBufferPointer<UInt8>, limits: RequestLimits)
        throws(RequestRejection) -> RequestFields
    {
        let fields: RequestFields
        do {
            fields = try RequestFields(parsing: frame, maxDepth: limits.maxDepth)
        } catch {
            throw RequestRejection(id: nil, error: .badFrame(error.description))
        }
        if let value = fields.nonObject {
            throw RequestRejection(id: nil, error: .badFrame("got \(value.kindDescription)"))
        }
        return fields
    }

    /// Checks `id` and `op`, then reads the op's fields.
    static func decode(_ source: consuming RequestFields, limits: RequestLimits, frameByteCount: Int?) -> Result<
        Request, RequestRejection
    > {
        let fields = FieldReader(source, errorCode: .badRequest)
        let id: RequestID?
        switch fields.source.sentID {
        case .absent: id = nil
        case .valid(let valid): id = valid
        case .invalid(let other):
            let error = fields.failure(.id, "must be a string or an integer, got \(other.kindDescription)")
            return .failure(RequestRejection(id: nil, error: error))
        }
        do throws(WireError) {
            let kind = try operationKind(of: fields)
            return .success(
                Request(
                    id: id,
                    operation: try Operation.decode(kind, from: fields, limits: limits, frameByteCount: frameByteCount),
                    kind: kind)
            )
        } catch {
            return .failure(RequestRejection(id: id, error: error))
        }
    }

    /// The op a request names; a plain string is matched as its bytes, without making a `String`.
    private static func operationKind(of fields: FieldReader<RequestFields>) throws(WireError) -> OperationKind {
        if let bytes = fields.source.plainString(.op), let kind = OperationKind.named(bytes) {
            return kind
        }
        let name = try fields.requiredString(.op)
        guard let kind = OperationKind.named(name) else {
            throw WireError.unknownOperation(name)
        }
        return kind
    }
}
