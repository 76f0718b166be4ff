/// What a request asks for: one case per op of docs/protocol.md, with its fields decoded and checked.
public enum Operation: Sendable, Equatable {
    /// Introduce the connection. `protocolVersion` is the `"protocol"` field (default 1).
    case hello(name: String?, token: String?, protocolVersion: Int64)
    /// Read a key.
    case get(key: String)
    /// Write a key; with `ifVersion`, only if the key is at that version (0: only if missing).
    /// `sessionBound` binds the key to the writer's session; `requestId` makes the
    /// write safe to send again (the server applies it once); `ttl` makes it an
    /// expiring key, deleted that many seconds after this write (1 to ``maxTTLSeconds``).
    case set(
        key: String, value: JSONValue, ifVersion: Int64?, sessionBound: Bool = false, requestId: String? = nil,
        ttl: Int64? = nil)
    /// Remove a key; with `ifVersion`, only if the key is at that version; `requestId` as for `set`.
    case delete(key: String, ifVersion: Int64?, requestId: String? = nil)
    /// Snapshot a key or prefix and receive its later changes as events; with
    /// `from`, replay the changes after that revision instead of a snapshot;
    /// `slow` says what happens to its events when the client falls behind them.
    case observe(Target, from: ResumePoint? = nil, slow: SlowPolicy = .coalesce)
    /// Stop observing a key or prefix.
    case unobserve(Target)
    /// The keys under a prefix (`""` for all) with their versions, in byte order:
    /// those after the key `after`, at most `limit` of them.
    case list(prefix: String, after: String?, limit: Int64?)
    /// An empty round trip.
    case ping
    /// The held changes of a key or prefix, filtered and paged as the query says.
    case history(HistoryQuery)
    /// Apply `operations` (1–128 sets, deletes and checks, each key at most once)
    /// all or nothing, every change at one revision; `requestId` makes the whole
    /// batch safe to send again, as for `set`.
    case batch(operations: [BatchOperation<JSONValue>], requestId: String? = nil)

    /// The op name of this operation.
    public var kind: OperationKind {
        switch self {
        case .hello: return .hello
        case .get: return .get
        case .set: return .set
        case .delete: return .delete
        case .observe: return .observe
        case .unobserve: return .unobserve
        case .list: return .list
        case .ping: return .ping
        case .history: return .history
        case .batch: return .batch
        }
    }
}

// MARK: - Decoding

extension Operation {
    /// Decodes the fields of an op from a request object whose `op` was `kind`.
    ///
    /// - Parameter frameByteCount: The size of the frame the object was parsed
    ///   from, if known; it lets small frames skip measuring the value.
    static func decode(
        _ kind: OperationKind, from fields: FieldReader<RequestFields>, limits: RequestLimits, frameByteCount: Int?
    ) throws(WireError) -> Operation {
        switch kind {
        case .hello:
            return .hello(
                name: try helloName(from: fields),
                token: try fields.optionalString(.token),
                protocolVersion: try fields.optionalInteger(.protocolVersion, minimum: 1) ?? 1
            )
        case .get:
            return .get(key: try key(from: fields))
        case .set:
            let set = try decodeSet(
                from: fields, readValue: { () throws(WireError) in try fields.requiredValue(.value) },
                checkSize: { (value) throws(WireError) in
                    try checkSize(of: value, limit: limits.maxValueBytes, frameByteCount: frameByteCount)
                })
            return .set(
                key: set.key, value: set.value, ifVersion: set.ifVersion, sessionBound: set.sessionBound,
                requestId: set.requestId, ttl: set.ttl)
        case .delete:
            return .delete(
                key: try key(from: fields), ifVersion: try fields.optionalInteger(.ifVersion, minimum: 0),
                requestId: try requestId(from: fields))
        case .observe:
            return .observe(
                try target(from: fields), from: try resumePoint(from: fields), slow: try slowPolicy(from: fields))
        case .unobserve:
            return .unobserve(try target(from: fields))
        case .list:
            let prefix = try fields.optionalString(.prefix) ?? ""
            try KeyRules.validate(prefix: prefix)
            let after = try fields.optionalString(.after)
            if let after { try KeyRules.validate(key: after) }
            return .list(prefix: prefix, after: after, limit: try fields.optionalInteger(.limit, minimum: 1))
        case .ping:
            return .ping
        case .history:
            return .history(try HistoryQuery.decode(from: fields, target: try target(from: fields)))
        case .batch:
            return .batch(
                operations: try BatchOperation<JSONValue>.decodeAll(
                    try fields.requiredArray(.ops), limits: limits, frameByteCount: frameByteCount),
                requestId: try requestId(from: fields))
        }
    }

    /// Reads a `set`'s fields in the order that decides which error is reported
    /// first: `key`, `value` (with `readValue`), `ifVersion`, `sessionBound`,
    /// `requestId`, `ttl`, and last the value's size (with `checkSize`).
    ///
    /// Shared by ``Request`` (a `JSONValue`) and ``RawRequest`` (an `EncodedJSON`).
    static func decodeSet<Value>(
        from fields: FieldReader<RequestFields>, readValue: () throws(WireError) -> Value,
        checkSize: (Value) throws(WireError) -> Void
    ) throws(WireError) -> (
        key: String, value: Value, ifVersion: Int64?, sessionBound: Bool, requestId: String?, ttl: Int64?
    ) {
        let key = try key(from: fields)
        let value = try readValue()
        let ifVersion = try fields.optionalInteger(.ifVersion, minimum: 0)
        let sessionBound = try fields.optionalBool(.sessionBound) ?? false
        let requestId = try requestId(from: fields)
        let ttl = try ttl(from: fields)
        try checkSize(value)
        return (key, value, ifVersion, sessionBound, requestId, ttl)
    }

    /// The longest `ttl`: 365 days, in seconds.
    public static let maxTTLSeconds: Int64 = 31_536_000

    /// A `ttl` is a whole number of seconds from 1 to ``maxTTLSeconds``, or absent.
    private static func ttl(from fields: FieldReader<RequestFields>) throws(WireError) -> Int64? {
        guard let value = fields.optionalValue(.ttl) else { return nil }
        guard let seconds = value.integerValue, (1...maxTTLSeconds).contains(seconds) else {
            throw fields.failure(
                .ttl,
                "must be a whole number of seconds from 1 to \(maxTTLSeconds), got \(value.kindDescription) "
                    + value.abbreviatedDescription)
        }
        return seconds
    }

    /// The longest author name, in UTF-8 bytes.
    public static let maxNameBytes = 128

    /// A `name` is 1–128 bytes of UTF-8 without control characters, or absent.
    private static func helloName(from fields: FieldReader<RequestFields>) throws(WireError) -> String? {
        guard let name = try fields.optionalString(.name) else { return nil }
        guard (1...maxNameBytes).contains(name.utf8.count),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw WireError(
                code: .badRequest,
                message: "field \"name\" must be 1 to \(maxNameBytes) bytes of UTF-8 without control characters")
        }
        return name
    }

    /// The longest `requestId`, in UTF-8 bytes.
    public static let maxRequestIdBytes = 128

    /// A `requestId` is a string of 1–128 bytes, or absent.
    static func requestId(from fields: FieldReader<RequestFields>) throws(WireError) -> String? {
        guard let requestId = try fields.optionalString(.requestId) else { return nil }
        guard (1...maxRequestIdBytes).contains(requestId.utf8.count) else {
            throw fields.failure(.requestId, "must be a string of 1 to \(maxRequestIdBytes) bytes, such as a UUID")
        }
        return requestId
    }

    /// `fromRevision` (an integer ≥ 0) with an optional `epoch`; an `epoch` alone is an error.
    private static func resumePoint(from fields: FieldReader<RequestFields>) throws(WireError) -> ResumePoint? {
        let epoch = try fields.optionalString(.epoch)
        guard let revision = try fields.optionalInteger(.fromRevision, minimum: 0) else {
            guard epoch == nil else {
                throw fields.failure(.epoch, "is only meaningful with \"fromRevision\"")
            }
            return nil
        }
        return ResumePoint(revision: revision, epoch: epoch)
    }

    /// `"coalesce"` (the default when absent) or `"close"`.
    private static func slowPolicy(from fields: FieldReader<RequestFields>) throws(WireError) -> SlowPolicy {
        guard let name = try fields.optionalString(.slow) else { return .coalesce }
        guard let policy = SlowPolicy(rawValue: name) else {
            throw fields.failure(.slow, "must be \"coalesce\" or \"close\", got \"\(name)\"")
        }
        return policy
    }

    private static func key(from fields: FieldReader<RequestFields>) throws(WireError) -> String {
        let key = try fields.requiredString(.key)
        try KeyRules.validate(key: key)
        return key
    }

    /// Exactly one of `key` and `prefix`.
    private static func target(from fields: FieldReader<RequestFields>) throws(WireError) -> Target {
        switch (try fields.optionalString(.key), try fields.optionalString(.prefix)) {
        case (let key?, nil):
            try KeyRules.validate(key: key)
            return .key(key)
        case (nil, let prefix?):
            try KeyRules.validate(prefix: prefix)
            return .prefix(prefix)
        case (nil, nil):
            throw WireError(
                code: .badRequest, message: "one of the fields \"key\" or \"prefix\" (a string) is required")
        case (_?, _?):
            throw WireError(code: .badRequest, message: "give only one of the fields \"key\" or \"prefix\", not both")
        }
    }

    /// The most a value's compact encoding can exceed the text it was parsed from.
    /// Only numbers grow (`1e15` → `1000000000000000`, 4×; `1e-5` → `1e-05`);
    /// strings never do, since escapes are written no longer than they can be read.
    private static let encodingGrowthBound = 8

    private static func checkSize(of value: JSONValue, limit: Int, frameByteCount: Int?) throws(WireError) {
        try checkSize(limit: limit, frameByteCount: frameByteCount) { value.encoded().count }
    }

    /// Throws `value_too_large` when the value's compact encoding, as `size`
    /// measures it, is over `limit`; frames too small to hold such a value skip measuring.
    static func checkSize(limit: Int, frameByteCount: Int?, size measure: () -> Int) throws(WireError) {
        if let frameByteCount, frameByteCount <= limit / encodingGrowthBound {
            return
        }
        let size = measure()
        guard size <= limit else {
            throw WireError.valueTooLarge(size: size, limit: limit)
        }
    }
}

// MARK: - Encoding

extension Operation {
    /// Appends the op's fields (after `"op"`), each preceded by a comma.
    func encodeFields(into buffer: inout [UInt8]) {
        switch self {
        case .hello(let name, let token, let protocolVersion):
            if let name { Self.writeField("name", .string(name), into: &buffer) }
            if let token { Self.writeField("token", .string(token), into: &buffer) }
            Self.writeField("protocol", .integer(protocolVersion), into: &buffer)
        case .get(let key):
            Self.writeField("key", .string(key), into: &buffer)
        case .set(let key, let value, let ifVersion, let sessionBound, let requestId, let ttl):
            Self.writeField("key", .string(key), into: &buffer)
            Self.writeField("value", value, into: &buffer)
            if let ifVersion { Self.writeField("ifVersion", .integer(ifVersion), into: &buffer) }
            if sessionBound { Self.writeField("ephemeral", .bool(true), into: &buffer) }
            if let requestId { Self.writeField("requestId", .string(requestId), into: &buffer) }
            if let ttl { Self.writeField("ttl", .integer(ttl), into: &buffer) }
        case .delete(let key, let ifVersion, let requestId):
            Self.writeField("key", .string(key), into: &buffer)
            if let ifVersion { Self.writeField("ifVersion", .integer(ifVersion), into: &buffer) }
            if let requestId { Self.writeField("requestId", .string(requestId), into: &buffer) }
        case .observe(let target, let resumePoint, let slow):
            Self.writeTarget(target, into: &buffer)
            if let resumePoint {
                Self.writeField("fromRevision", .integer(resumePoint.revision), into: &buffer)
                if let epoch = resumePoint.epoch { Self.writeField("epoch", .string(epoch), into: &buffer) }
            }
            if slow != .coalesce { Self.writeField("slow", .string(slow.rawValue), into: &buffer) }
        case .unobserve(let target):
            Self.writeTarget(target, into: &buffer)
        case .list(let prefix, let after, let limit):
            Self.writeField("prefix", .string(prefix), into: &buffer)
            if let after { Self.writeField("after", .string(after), into: &buffer) }
            if let limit { Self.writeField("limit", .integer(limit), into: &buffer) }
        case .ping:
            break
        case .history(let query):
            Self.writeTarget(query.target, into: &buffer)
            query.encodeFields(into: &buffer) { name, value, buffer in Self.writeField(name, value, into: &buffer) }
        case .batch(let operations, let requestId):
            JSONWriter.writeLiteral(",\"ops\":[", into: &buffer)
            for (index, operation) in operations.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                operation.encode(into: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
            if let requestId { Self.writeField("requestId", .string(requestId), into: &buffer) }
        }
    }

    private static func writeTarget(_ target: Target, into buffer: inout [UInt8]) {
        switch target {
        case .key(let key): writeField("key", .string(key), into: &buffer)
        case .prefix(let prefix): writeField("prefix", .string(prefix), into: &buffer)
        }
    }

    private static func writeField(_ name: StaticString, _ value: JSONValue, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: ","))
        buffer.append(UInt8(ascii: "\""))
        JSONWriter.writeLiteral(name, into: &buffer)
        JSONWriter.writeLiteral("\":", into: &buffer)
        JSONWriter.write(value, into: &buffer)
    }
}
