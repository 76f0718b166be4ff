/// A field that some request of docs/protocol.md carries, known by the byte pattern of its name.
enum RequestField: Int, CaseIterable {
    case id, op, key, value, prefix, after, limit, ifVersion, ephemeral, requestId
    case name, token, protocolVersion, fromRevision, epoch, slow
    case author, session, toRevision, newestFirst
    case ops, ttl

    /// The field's name in a request.
    var name: String {
        switch self {
        case .id: return "id"
        case .op: return "op"
        case .key: return "key"
        case .value: return "value"
        case .prefix: return "prefix"
        case .after: return "after"
        case .limit: return "limit"
        case .ifVersion: return "ifVersion"
        case .ephemeral: return "ephemeral"
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
    init?(name: UnsafeBufferPointer<UInt8>) {
        guard let packed = PackedName(name),
            let match = Self.packedNames.first(where: { $0.packed == packed })
        else {
            return nil
        }
        self = match.field
    }

    /// Every field with its packed name, so a member name is matched by comparing
    /// two integers per field rather than by building and comparing strings.
    private static let packedNames: [(field: RequestField, packed: PackedName)] = allCases.compactMap { field in
        var name = field.name
        return name.withUTF8 { bytes in PackedName(bytes).map { (field, $0) } }
    }

    /// A name of at most 16 bytes held in two integers, with its length.
    private struct PackedName: Equatable {
        private var low: UInt64 = 0
        private var high: UInt64 = 0
        private let count: Int

        /// Nil for names longer than any field's.
        init?(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard bytes.count <= 16 else { return nil }
            count = bytes.count
            for (offset, byte) in bytes.enumerated() {
                let shifted = UInt64(byte) << (8 * UInt64(offset % 8))
                if offset < 8 {
                    low |= shifted
                } else {
                    high |= shifted
                }
            }
        }
    }
}
