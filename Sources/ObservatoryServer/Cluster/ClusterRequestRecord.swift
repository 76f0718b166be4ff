import ObservatoryEtcd
import ObservatoryWire

/// What a cluster keeps under a write's `requestId` (`<prefix>r/<id>`, on a lease
/// that outlives the protocol's 10 minutes): the first reply's fields, so that
/// the same write sent again, to any node, is answered from here.
///
/// The record is written in the write's own transaction, which is why a change's
/// version is not stored: it is the record's `mod_revision`.
enum ClusterRequestRecord {
    /// The record of a write whose reply is `payload` (`nil` when it is not worth
    /// remembering: only writes that were applied are).
    static func encode(_ payload: ReplyPayload, isChange: Bool) -> [UInt8]? {
        var members: [(String, JSONValue)] = []
        switch payload {
        case .set(let key, let version, let changed, _):
            members = [("op", "set"), ("key", .string(key)), ("changed", .bool(changed))]
            if !isChange { members.append(("version", .integer(version))) }
        case .delete(let key, _, _):
            members = [("op", "delete"), ("key", .string(key))]
        default:
            return nil
        }
        return JSONValue.object(JSONObject(members)).encoded()
    }

    /// The reply to a duplicate of the write that `stored` remembers, with `duplicate` set.
    static func duplicateReply(_ stored: EtcdKeyValue) -> ReplyPayload? {
        guard let record = try? JSONValue.parse(stored.value) else { return nil }
        if record["op"] == "batch" { return duplicateBatchReply(record, stored) }
        guard case .string(let key)? = record["key"] else { return nil }
        let version = record["version"]?.integerValue ?? stored.modRevision
        switch record["op"] {
        case "set":
            return .set(key: key, version: version, changed: record["changed"] == .bool(true), duplicate: true)
        case "delete":
            return .delete(key: key, version: version, duplicate: true)
        default:
            return nil
        }
    }

    /// The record of a batch: each result, without the version of those that
    /// change a key (`changes`), which is the record's `mod_revision`, as is the
    /// batch's revision (the record is written in the batch's transaction).
    static func encodeBatch(_ results: [BatchResult], changes: [Bool]) -> [UInt8] {
        let elements = zip(results, changes).map { result, isChange -> JSONValue in
            var members: [(String, JSONValue)] = [("key", .string(result.key))]
            if !isChange { members.append(("version", .integer(result.version))) }
            if let changed = result.changed { members.append(("changed", .bool(changed))) }
            return .object(JSONObject(members))
        }
        return JSONValue.object(JSONObject([("op", "batch"), ("results", .array(elements))])).encoded()
    }

    /// The reply to a duplicate of the batch that `stored` remembers, with `duplicate` set.
    static func duplicateBatchReply(_ record: JSONValue, _ stored: EtcdKeyValue) -> ReplyPayload? {
        guard case .array(let elements)? = record["results"] else { return nil }
        var results: [BatchResult] = []
        for element in elements {
            guard case .string(let key)? = element["key"] else { return nil }
            results.append(
                BatchResult(
                    key: key, version: element["version"]?.integerValue ?? stored.modRevision,
                    changed: element["changed"]?.boolValue))
        }
        return .batch(revision: stored.modRevision, results: results, duplicate: true)
    }
}
