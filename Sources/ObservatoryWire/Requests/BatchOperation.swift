/// One operation of a `batch` (docs/protocol.md, "Batches"): a write or a
/// condition, applied with the others of its batch all or nothing.
///
/// A batch's operations carry no `requestId` of their own: the batch's
/// `requestId` covers them all, and one sent inside an operation is ignored,
/// as every unknown field is.
public enum BatchOperation: Sendable, Equatable {
    /// Write `key`, with the fields of a single `set`: only if the key is at
    /// `ifVersion` (0: only if missing) when given; `sessionBound` binds the key
    /// to the writer's session (`"ephemeral"` on the wire); `ttl` makes it an
    /// expiring key, deleted that many seconds after the batch.
    case set(key: String, value: JSONValue, ifVersion: Int64? = nil, sessionBound: Bool = false, ttl: Int64? = nil)
    /// Remove `key`; with `ifVersion`, only if the key is at that version.
    case delete(key: String, ifVersion: Int64? = nil)
    /// A condition that writes nothing: the batch applies only if `key` is at
    /// `ifVersion` (0: only if missing).
    case check(key: String, ifVersion: Int64)

    /// The most operations one batch may hold.
    public static let maxCount = 128

    /// The longest `ttl` a key may be given, in seconds (365 days).
    public static let maxTTL: Int64 = 31_536_000

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

extension BatchOperation {
    /// Reads a batch's `ops`: 1–128 objects, each a `set`, `delete` or `check`
    /// with a key no earlier operation has. An error found in one operation
    /// (`bad_request`, `invalid_key`, `value_too_large`) carries its `index`.
    static func decodeAll(
        _ ops: [JSONValue], limits: RequestLimits, frameByteCount: Int?
    ) throws(WireError) -> [BatchOperation] {
        guard (1...maxCount).contains(ops.count) else {
            throw WireError(
                code: .badRequest,
                message: "field \"ops\" must hold 1 to \(maxCount) operations, got \(ops.count)")
        }
        var operations: [BatchOperation] = []
        operations.reserveCapacity(ops.count)
        var keys = Set<String>(minimumCapacity: ops.count)
        for (index, element) in ops.enumerated() {
            let operation: BatchOperation
            do throws(WireError) {
                operation = try decode(element, limits: limits, frameByteCount: frameByteCount)
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

    /// Reads one element of `ops`.
    private static func decode(_ element: JSONValue, limits: RequestLimits, frameByteCount: Int?)
        throws(WireError) -> BatchOperation
    {
        guard let object = element.objectValue else {
            throw WireError(
                code: .badRequest, message: "each element of \"ops\" must be an object, got \(element.kindDescription)")
        }
        let fields = FieldReader(object, errorCode: .badRequest, context: "batch operation: ")
        let name = try fields.requiredString("op")
        switch name {
        case "set":
            let key = try key(from: fields)
            let value = try fields.requiredValue("value")
            let ifVersion = try fields.optionalInteger("ifVersion", minimum: 0)
            let sessionBound = try fields.optionalBool("ephemeral") ?? false
            let ttl = try ttl(from: fields)
            try Operation.checkSize(limit: limits.maxValueBytes, frameByteCount: frameByteCount) {
                value.encoded().count
            }
            return .set(key: key, value: value, ifVersion: ifVersion, sessionBound: sessionBound, ttl: ttl)
        case "delete":
            return .delete(key: try key(from: fields), ifVersion: try fields.optionalInteger("ifVersion", minimum: 0))
        case "check":
            let key = try key(from: fields)
            guard let ifVersion = try fields.optionalInteger("ifVersion", minimum: 0) else {
                throw fields.failure("ifVersion", "is required in a check (an integer ≥ 0)")
            }
            return .check(key: key, ifVersion: ifVersion)
        default:
            throw fields.failure("op", "must be \"set\", \"delete\" or \"check\", got \"\(name)\"")
        }
    }

    private static func key(from fields: FieldReader<JSONObject>) throws(WireError) -> String {
        let key = try fields.requiredString("key")
        try KeyRules.validate(key: key)
        return key
    }

    /// A `ttl` is a whole number of seconds from 1 to ``maxTTL`` (`30.0` counts), or absent.
    private static func ttl(from fields: FieldReader<JSONObject>) throws(WireError) -> Int64? {
        guard let value = fields.optionalValue("ttl") else { return nil }
        guard let seconds = value.integerValue, (1...maxTTL).contains(seconds) else {
            throw fields.failure(
                "ttl", "must be a whole number of seconds from 1 to \(maxTTL), got \(value.abbreviatedDescription)")
        }
        return seconds
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
            JSONWriter.write(value, into: &buffer)
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
