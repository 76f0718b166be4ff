/// A field that some request of docs/protocol.md carries, known by the byte pattern of its name.
enum RequestField: Int, CaseIterable {
    case id, op, key, value, prefix, after, limit, ifVersion, sessionBound, requestId
    case name, token, protocolVersion, fromRevision, epoch, slow
    case author, session, toRevision, newestFirst
    case ops, ttl

    /// The field's name in a request.
    var name: String {
        literal.description
    }

    /// The field's name in a request, as compiled-in bytes.
    private var literal: StaticString {
        switch self {
        case .id: return "id"
        case .op: return "op"
        case .key: return "key"
        case .value: return "value"
        case .prefix: return "prefix"
        case .after: return "after"
        case .limit: return "limit"
        case .ifVersion: return "ifVersion"
        case .sessionBound: return "ephemeral"
        case .requestId: return "requestId"
        case .name: return "name"
        case .token: return "token"
        case .protocolVersion: return "protocol"
        case .fromRevision: return "fromRevision"
        case .epoch: return "epoch"
        case .slow: return "slow"
        case .author: return "author"
        case .session: return "session"
        case .toRevision: return "toRevision"
        case .newestFirst: return "newestFirst"
        case .ops: return "ops"
        case .ttl: return "ttl"
        }
    }

    /// The field named by these bytes (a member name, unescaped); nil for a name no request has.
    ///
    /// The length and first byte leave one candidate, compared byte for byte: a
    /// member name costs one comparison, where a search packing the name and
    /// comparing it with every field's cost about 400 instructions a `set` (callgrind).
    init?(name: UnsafeBufferPointer<UInt8>) {
        guard let first = name.first, let candidate = Self.candidate(count: name.count, first: first) else {
            return nil
        }
        guard name.holds(candidate.literal) else { return nil }
        self = candidate
    }

    /// The only field a name of this length and first byte can be.
    private static func candidate(count: Int, first: UInt8) -> RequestField? {
        switch (count, first) {
        case (2, UInt8(ascii: "i")): return .id
        case (2, UInt8(ascii: "o")): return .op
        case (3, UInt8(ascii: "k")): return .key
        case (3, UInt8(ascii: "o")): return .ops
        case (3, UInt8(ascii: "t")): return .ttl
        case (4, UInt8(ascii: "n")): return .name
        case (4, UInt8(ascii: "s")): return .slow
        case (5, UInt8(ascii: "v")): return .value
        case (5, UInt8(ascii: "a")): return .after
        case (5, UInt8(ascii: "l")): return .limit
        case (5, UInt8(ascii: "t")): return .token
        case (5, UInt8(ascii: "e")): return .epoch
        case (6, UInt8(ascii: "p")): return .prefix
        case (6, UInt8(ascii: "a")): return .author
        case (7, UInt8(ascii: "s")): return .session
        case (8, UInt8(ascii: "p")): return .protocolVersion
        case (9, UInt8(ascii: "i")): return .ifVersion
        case (9, UInt8(ascii: "e")): return .sessionBound
        case (9, UInt8(ascii: "r")): return .requestId
        case (10, UInt8(ascii: "t")): return .toRevision
        case (11, UInt8(ascii: "n")): return .newestFirst
        case (12, UInt8(ascii: "f")): return .fromRevision
        default: return nil
        }
    }
}
