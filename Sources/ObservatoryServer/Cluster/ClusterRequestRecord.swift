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
        guard let record = try? JSONValue.parse(stored.value), case .string(let key)? = record["key"] else {
            return nil
        }
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
}
