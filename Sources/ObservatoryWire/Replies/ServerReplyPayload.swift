/// The fields of a success reply, one case per op (docs/protocol.md, "Ops"),
/// generic over how the values of a `get`, an `observe` and a `history` are held
/// (see ``ServerReply``).
public enum ServerReplyPayload<Value: JSONWritable>: Sendable, Equatable {
    /// `server`, `protocol`, `session`, `author`, `revision` (the last revision), `epoch` (the history's name).
    case hello(server: String, protocolVersion: Int64, session: String, author: String, revision: Int64, epoch: String)
    /// `key`, `value`, `version`, `author`, `session`.
    case get(KeyEntry<Value>)
    /// `key`, `version`, `changed` (false when the value was already equal: no new version);
    /// `duplicate` when a write with the same `requestId` was applied before and
    /// these are the fields of its reply.
    case set(key: String, version: Int64, changed: Bool, duplicate: Bool = false)
    /// `key`, `version` (the revision of the delete); `duplicate` as for `set`.
    case delete(key: String, version: Int64, duplicate: Bool = false)
    /// `values`: the snapshot of the observed entries (missing keys not listed; empty
    /// and absent on the wire when resumed); `revision`: the last revision when the
    /// snapshot was taken or the replay ends; `resumed`: whether a `fromRevision`
    /// was honoured (absent when none was asked for).
    case observe(values: [KeyEntry<Value>], revision: Int64, resumed: Bool? = nil)
    /// No fields.
    case unobserve
    /// `keys`: the keys under the prefix with their versions, in byte order;
    /// `more`: whether keys under the prefix follow the last one.
    case list(keys: [KeyVersion], more: Bool)
    /// `revision` (the last revision) and `epoch`.
    case ping(revision: Int64, epoch: String)
    /// `changes`: the held changes asked for, each its event plus `at`; `more`:
    /// whether further matching changes lie in the range beyond them; `revision`:
    /// the last revision; `horizon`: every change above it is held, none at or below it.
    case history(changes: [HistoryChange<Value>], more: Bool, revision: Int64, horizon: Int64)
    /// `revision` (the batch's, or the current one when nothing changed) and
    /// `results`, one per operation in order; `duplicate` when a batch with the
    /// same `requestId` was applied before and these are the fields of its reply.
    case batch(revision: Int64, results: [BatchResult], duplicate: Bool = false)

    /// Appends the payload's fields, each preceded by a comma (they follow `"ok"` and `"id"`).
    func encodeFields(into buffer: inout [UInt8]) {
        switch self {
        case .hello(let server, let protocolVersion, let session, let author, let revision, let epoch):
            JSONWriter.writeLiteral(",\"server\":", into: &buffer)
            JSONWriter.write(server, into: &buffer)
            JSONWriter.writeLiteral(",\"protocol\":", into: &buffer)
            JSONWriter.write(protocolVersion, into: &buffer)
            JSONWriter.writeLiteral(",\"session\":", into: &buffer)
            JSONWriter.write(session, into: &buffer)
            JSONWriter.writeLiteral(",\"author\":", into: &buffer)
            JSONWriter.write(author, into: &buffer)
            Self.writeRevisionAndEpoch(revision, epoch, into: &buffer)
        case .get(let entry):
            buffer.append(UInt8(ascii: ","))
            entry.encodeFields(into: &buffer)
        case .set(let key, let version, let changed, let duplicate):
            Self.writeKeyAndVersion(key, version, into: &buffer)
            JSONWriter.writeLiteral(",\"changed\":", into: &buffer)
            JSONWriter.writeLiteral(changed ? "true" : "false", into: &buffer)
            if duplicate { JSONWriter.writeLiteral(",\"duplicate\":true", into: &buffer) }
        case .delete(let key, let version, let duplicate):
            Self.writeKeyAndVersion(key, version, into: &buffer)
            if duplicate { JSONWriter.writeLiteral(",\"duplicate\":true", into: &buffer) }
        case .observe(let values, let revision, let resumed):
            JSONWriter.writeObserveFields(values: values, revision: revision, resumed: resumed, into: &buffer) {
                entry, buffer in entry.encodeFields(into: &buffer)
            }
        case .list(let keys, let more):
            JSONWriter.writeLiteral(",\"keys\":[", into: &buffer)
            for (index, pair) in keys.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                pair.encode(into: &buffer)
            }
            JSONWriter.writeLiteral(more ? "],\"more\":true" : "],\"more\":false", into: &buffer)
        case .ping(let revision, let epoch):
            Self.writeRevisionAndEpoch(revision, epoch, into: &buffer)
        case .unobserve:
            break
        case .history(let changes, let more, let revision, let horizon):
            JSONWriter.writeHistoryFields(
                changes: changes, more: more, revision: revision, horizon: horizon, into: &buffer)
        case .batch(let revision, let results, let duplicate):
            JSONWriter.writeLiteral(",\"revision\":", into: &buffer)
            JSONWriter.write(revision, into: &buffer)
            JSONWriter.writeLiteral(",\"results\":[", into: &buffer)
            for (index, result) in results.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                result.encode(into: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
            if duplicate { JSONWriter.writeLiteral(",\"duplicate\":true", into: &buffer) }
        }
    }

    private static func writeRevisionAndEpoch(_ revision: Int64, _ epoch: String, into buffer: inout [UInt8]) {
        JSONWriter.writeLiteral(",\"revision\":", into: &buffer)
        JSONWriter.write(revision, into: &buffer)
        JSONWriter.writeLiteral(",\"epoch\":", into: &buffer)
        JSONWriter.write(epoch, into: &buffer)
    }

    private static func writeKeyAndVersion(_ key: String, _ version: Int64, into buffer: inout [UInt8]) {
        JSONWriter.writeLiteral(",\"key\":", into: &buffer)
        JSONWriter.write(key, into: &buffer)
        JSONWriter.writeLiteral(",\"version\":", into: &buffer)
        JSONWriter.write(version, into: &buffer)
    }
}

extension ServerReplyPayload where Value == JSONValue {
    /// Reads the payload of a reply to an op of `kind` from the reply's fields.
    static func decode(_ kind: OperationKind, from fields: FieldReader<JSONObject>) throws(WireError)
        -> ServerReplyPayload
    {
        switch kind {
        case .hello:
            return .hello(
                server: try fields.requiredString("server"),
                protocolVersion: try fields.requiredInteger("protocol", minimum: 0),
                session: try fields.requiredString("session"),
                author: try fields.requiredString("author"),
                revision: try fields.optionalInteger("revision", minimum: 0) ?? 0,
                epoch: try fields.optionalString("epoch") ?? ""
            )
        case .get:
            return .get(try ValueEntry.decode(from: fields))
        case .set:
            return .set(
                key: try fields.requiredString("key"),
                version: try fields.requiredInteger("version", minimum: 0),
                changed: try fields.requiredBool("changed"),
                duplicate: try fields.optionalBool("duplicate") ?? false
            )
        case .delete:
            return .delete(
                key: try fields.requiredString("key"), version: try fields.requiredInteger("version", minimum: 0),
                duplicate: try fields.optionalBool("duplicate") ?? false)
        case .observe:
            let resumed = try fields.optionalBool("resumed")
            return .observe(
                values: resumed == true ? [] : try elements(of: "values", in: fields, ValueEntry.decode),
                revision: try fields.optionalInteger("revision", minimum: 0) ?? 0,
                resumed: resumed)
        case .unobserve:
            return .unobserve
        case .list:
            return .list(
                keys: try elements(of: "keys", in: fields, KeyVersion.decode),
                more: fields.optionalValue("more")?.boolValue ?? false)
        case .ping:
            return .ping(
                revision: try fields.optionalInteger("revision", minimum: 0) ?? 0,
                epoch: try fields.optionalString("epoch") ?? "")
        case .history:
            return .history(
                changes: try elements(of: "changes", in: fields, HistoryChange.decode),
                more: try fields.requiredBool("more"),
                revision: try fields.requiredInteger("revision", minimum: 0),
                horizon: try fields.requiredInteger("horizon", minimum: 0))
        case .batch:
            return .batch(
                revision: try fields.requiredInteger("revision", minimum: 0),
                results: try elements(of: "results", in: fields, BatchResult.decode),
                duplicate: try fields.optionalBool("duplicate") ?? false)
        }
    }

    /// Decodes each element of an array of objects.
    private static func elements<Element>(
        of field: String, in fields: FieldReader<JSONObject>,
        _ decode: (FieldReader<JSONObject>) throws(WireError) -> Element
    ) throws(WireError) -> [Element] {
        var result: [Element] = []
        for element in try fields.requiredArray(field) {
            guard let object = element.objectValue else {
                throw fields.failure(field, "must hold objects, got \(element.kindDescription)")
            }
            result.append(try decode(fields.nested(object)))
        }
        return result
    }
}

/// The fields of a success reply with its values as `JSONValue`s: what clients
/// decode, and what a server answers a write or a `ping` with.
public typealias ReplyPayload = ServerReplyPayload<JSONValue>

/// The fields of a success reply with its values as `EncodedJSON`, copied as they were sent.
public typealias RawReplyPayload = ServerReplyPayload<EncodedJSON>
