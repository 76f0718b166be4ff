/// One operation of a `batch` (docs/protocol.md, "Batches"): a write or a
/// condition, applied with the others of its batch all or nothing.
///
/// A batch's operations carry no `requestId` of their own: the batch's
/// `requestId` covers them all, and one sent inside an operation is ignored,
/// as every unknown field is.
///
/// Generic over how a `set`'s value is held, as ``ServerEvent`` is: a client
/// builds operations with `JSONValue`s, and a server that keeps values as bytes
/// decodes a batch's values as `EncodedJSON` (``Operation/batch(operations:requestId:)``
/// of `Operation<EncodedJSON>`), copied from the frame without building a tree.
public enum BatchOperation<Value: JSONWritable>: Sendable, Equatable {
    /// Write `key`, with the fields of a single `set`: only if the key is at
    /// `ifVersion` (0: only if missing) when given; `sessionBound` binds the key
    /// to the writer's session (`"ephemeral"` on the wire); `ttl` makes it an
    /// expiring key, deleted that many seconds after the batch.
    case set(key: String, value: Value, ifVersion: Int64? = nil, sessionBound: Bool = false, ttl: Int64? = nil)
    /// Remove `key`; with `ifVersion`, only if the key is at that version.
    case delete(key: String, ifVersion: Int64? = nil)
    /// A condition that writes nothing: the batch applies only if `key` is at
    /// `ifVersion` (0: only if missing).
    case check(key: String, ifVersion: Int64)

    /// The most operations one batch may hold.
    public static var maxCount: Int { 128 }

    /// The longest `ttl` a key may be given, in seconds (365 days).
    public static var maxTTL: Int64 { 31_536_000 }

    /// The key the operation is about.
    public var key: String {
        switch self {
        case .set(let key, _, _, _, _), .delete(let key, _), .check(let key, _): return key
        }
    }

    /// The version the operation expects the key at, if it has a condition.
    public var ifVersion: Int64? {
        switch self {
        case .set(_, _, let ifVersion, _, _), .delete(_, let ifVersion): return ifVersion
        case .check(_, let ifVersion): return ifVersion
        }
    }

    /// The op's name in the batch (`"set"`, `"delete"` or `"check"`).
    public var name: String {
        switch self {
        case .set: return "set"
        case .delete: return "delete"
        case .check: return "check"
        }
    }
}

// MARK: - Decoding

extension BatchOperation where Value: RequestValue {
    /// Reads a batch's `ops`: 1–128 objects, each a `set`, `delete` or `check`
    /// with a key no earlier operation has. An error found in one operation
    /// (`bad_request`, `invalid_key`, `value_too_large`) carries its `index`.
    ///
    /// The elements come as their fields, read in the frame's one pass
    /// (``RequestFields/batchElements``), each `set`'s value kept as its bytes
    /// and made as `Value` only here: a batch of 10 sets costs less a key than
    /// 10 single sets (docs/benchmarks.md). For fields of an already parsed
    /// object, the elements are read from the array's trees.
    static func decodeAll(
        from fields: FieldReader<RequestFields>, limits: RequestLimits, frameByteCount: Int?
    ) throws(WireError) -> [BatchOperation] {
        let elements: [RequestFields]
        if let read = fields.source.batchElements {
            elements = read
        } else {
            // `ops` absent, `null` or no array in a frame leaves no elements; `requiredArray` says why.
            elements = try fields.requiredArray(.ops).map(RequestFields.init(element:))
        }
        guard (1...maxCount).contains(elements.count) else {
            throw WireError(
                code: .badRequest,
                message: "field \"ops\" must hold 1 to \(maxCount) operations, got \(elements.count)")
        }
        var operations: [BatchOperation] = []
        operations.reserveCapacity(elements.count)
        var keys = Set<String>(minimumCapacity: elements.count)
        for (index, source) in elements.enumerated() {
            let operation: BatchOperation
            do throws(WireError) {
                if let value = source.nonObject { throw notAnObject(value.kindDescription) }
                operation = try decode(
                    from: FieldReader(source, errorCode: .badRequest, context: "batch operation: "), limits: limits,
                    frameByteCount: frameByteCount)
            } catch {
                throw error.at(index: index)
            }
            guard keys.insert(operation.key).inserted else {
                throw WireError(
                    code: .badRequest,
                    message: "key \"\(operation.key)\" appears more than once in the batch; "
                        + "a key may appear at most once",
                    index: index)
            }
            operations.append(operation)
        }
        return operations
    }

    /// What an element of `ops` that is no object is told; `kind` is what it is instead.
    private static func notAnObject(_ kind: String) -> WireError {
        WireError(code: .badRequest, message: "each element of \"ops\" must be an object, got \(kind)")
    }

    /// Reads one operation's fields, in the order that decides which error is
    /// reported first; a `set`'s value size is checked last.
    private static func decode(
        from fields: FieldReader<RequestFields>, limits: RequestLimits, frameByteCount: Int?
    ) throws(WireError) -> BatchOperation {
        switch try name(from: fields) {
        case .set:
            let key = try fields.key()
            let value: Value = try fields.sentValue()
            let ifVersion = try fields.optionalInteger(.ifVersion, minimum: 0)
            let sessionBound = try fields.optionalBool(.sessionBound) ?? false
            let ttl = try ttl(from: fields)
            try Value.checkSize(of: value, limit: limits.maxValueBytes, frameByteCount: frameByteCount)
            return .set(key: key, value: value, ifVersion: ifVersion, sessionBound: sessionBound, ttl: ttl)
        case .delete:
            return .delete(key: try fields.key(), ifVersion: try fields.optionalInteger(.ifVersion, minimum: 0))
        case .check:
            let key = try fields.key()
            guard let ifVersion = try fields.optionalInteger(.ifVersion, minimum: 0) else {
                throw fields.failure(.ifVersion, "is required in a check (an integer ≥ 0)")
            }
            return .check(key: key, ifVersion: ifVersion)
        }
    }

    /// The op of a batch operation, matched as the bytes that were sent when it
    /// is a plain string (no `String` made), else as a string.
    private static func name(from fields: FieldReader<RequestFields>) throws(WireError) -> Name {
        if let bytes = fields.source.plainString(.op), let name = Name(bytes) {
            return name
        }
        let name = try fields.requiredString(.op)
        guard let known = Name(rawValue: name) else {
            throw fields.failure(.op, "must be \"set\", \"delete\" or \"check\", got \"\(name)\"")
        }
        return known
    }

    /// The ops a batch operation may name.
    private enum Name: String {
        case set, delete, check

        /// The op these bytes name; nil for any other.
        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            switch bytes.count {
            case 3 where bytes.holds("set"): self = .set
            case 6 where bytes.holds("delete"): self = .delete
            case 5 where bytes.holds("check"): self = .check
            default: return nil
            }
        }
    }

    /// A `ttl` is a whole number of seconds from 1 to ``maxTTL`` (`30.0` counts), or absent.
    private static func ttl(from fields: FieldReader<RequestFields>) throws(WireError) -> Int64? {
        guard let value = fields.optionalValue(.ttl) else { return nil }
        guard let seconds = value.integerValue, (1...maxTTL).contains(seconds) else {
            throw fields.failure(
                .ttl, "must be a whole number of seconds from 1 to \(maxTTL), got \(value.abbreviatedDescription)")
        }
        return seconds
    }
}

extension BatchOperation where Value == EncodedJSON {
    /// The operation with its value decoded into a tree.
    func decoded() -> BatchOperation<JSONValue> {
        switch self {
        case .set(let key, let value, let ifVersion, let sessionBound, let ttl):
            return .set(key: key, value: value.decoded(), ifVersion: ifVersion, sessionBound: sessionBound, ttl: ttl)
        case .delete(let key, let ifVersion): return .delete(key: key, ifVersion: ifVersion)
        case .check(let key, let ifVersion): return .check(key: key, ifVersion: ifVersion)
        }
    }
}

extension BatchOperation where Value == JSONValue {
    /// The operation with its value encoded as bytes, for a server that keeps values so.
    public func encodedValues() -> BatchOperation<EncodedJSON> {
        switch self {
        case .set(let key, let value, let ifVersion, let sessionBound, let ttl):
            return .set(
                key: key, value: EncodedJSON(value), ifVersion: ifVersion, sessionBound: sessionBound, ttl: ttl)
        case .delete(let key, let ifVersion): return .delete(key: key, ifVersion: ifVersion)
        case .check(let key, let ifVersion): return .check(key: key, ifVersion: ifVersion)
        }
    }
}

// MARK: - Encoding

extension BatchOperation {
    /// Appends the operation as one JSON object.
    func encode(into buffer: inout [UInt8]) {
        JSONWriter.writeLiteral("{\"op\":", into: &buffer)
        JSONWriter.write(name, into: &buffer)
        JSONWriter.writeLiteral(",\"key\":", into: &buffer)
        JSONWriter.write(key, into: &buffer)
        if case .set(_, let value, _, _, _) = self {
            JSONWriter.writeLiteral(",\"value\":", into: &buffer)
            value.encode(into: &buffer)
        }
        if let ifVersion {
            JSONWriter.writeLiteral(",\"ifVersion\":", into: &buffer)
            JSONWriter.write(ifVersion, into: &buffer)
        }
        if case .set(_, _, _, let sessionBound, let ttl) = self {
            if sessionBound { JSONWriter.writeLiteral(",\"ephemeral\":true", into: &buffer) }
            if let ttl {
                JSONWriter.writeLiteral(",\"ttl\":", into: &buffer)
                JSONWriter.write(ttl, into: &buffer)
            }
        }
        buffer.append(UInt8(ascii: "}"))
    }
}
