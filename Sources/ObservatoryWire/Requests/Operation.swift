/// What a request asks for: one case per op of docs/protocol.md, with its fields decoded and checked.
///
/// Generic over how the values of a `set` and of a batch's sets are held, as
/// ``ServerEvent`` and ``BatchOperation`` are: a client builds operations with
/// `JSONValue`s (`Operation<JSONValue>`); the server decodes them with their
/// values as `EncodedJSON`, the bytes that were sent, checked and never built
/// into trees (see ``Request``).
public enum Operation<Value: JSONWritable>: Sendable, Equatable {
    /// Introduce the connection. `protocolVersion` is the `"protocol"` field (default 1).
    case hello(name: String?, token: String?, protocolVersion: Int64)
    /// Read a key.
    case get(key: String)
    /// Write a key; with `ifVersion`, only if the key is at that version (0: only if missing).
    /// `sessionBound` binds the key to the writer's session; `requestId` makes the
    /// write safe to send again (the server applies it once); `ttl` makes it an
    /// expiring key, deleted that many seconds after this write (1 to ``RequestLimits/maxTTLSeconds``).
    case set(
        key: String, value: Value, ifVersion: Int64?, sessionBound: Bool = false, requestId: String? = nil,
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
    case batch(operations: [BatchOperation<Value>], requestId: String? = nil)

    /// The op name of this operation.
    ///
    /// Inlinable, so that the server's call (on `Operation<EncodedJSON>`, two a
    /// request) is specialized in its own module: called through the generic
    /// type, it copied the operation by its metadata and looked up the metadata
    /// of its cases' payloads, some 1,900 instructions a `set` (callgrind).
    @inlinable
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
            JSONWriter.writeLiteral(",\"value\":", into: &buffer)
            value.encode(into: &buffer)
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
