import ObservatoryJSON

/// A condition of a transaction on one key: one of its revisions, its version
/// or its value, compared with a given one. A key that does not exist has every
/// revision and its version at 0, so `createRevision == 0` means "absent".
public struct EtcdCompare: Hashable, Sendable {
    /// What of the key is compared, with the operand.
    public enum Target: Hashable, Sendable {
        /// The revision that created the key (0: absent).
        case createRevision(Int64)
        /// The revision of the key's last change.
        case modRevision(Int64)
        /// The number of writes since creation.
        case version(Int64)
        /// The value's bytes.
        case value([UInt8])
        /// The lease the key is attached to (0: none).
        case lease(Int64)
    }

    /// How the key's side compares with the operand.
    public enum Relation: String, Hashable, Sendable {
        /// Equal (`=`).
        case equal = "EQUAL"
        /// Not equal (`!=`).
        case notEqual = "NOT_EQUAL"
        /// The key's side is less (`<`).
        case less = "LESS"
        /// The key's side is greater (`>`).
        case greater = "GREATER"
    }

    /// The key compared.
    public var key: [UInt8]
    /// How it compares.
    public var relation: Relation
    /// What is compared, and with what.
    public var target: Target

    /// Creates a condition: `key`'s `target` stands in `relation` to the operand.
    public init(key: [UInt8], _ target: Target, _ relation: Relation) {
        self.key = key
        self.relation = relation
        self.target = target
    }

    /// The condition "`key` does not exist", for create-only writes.
    public static func absent(_ key: [UInt8]) -> EtcdCompare {
        EtcdCompare(key: key, .createRevision(0), .equal)
    }

    /// The condition "`key` was last changed at `revision`", for compare-and-swap.
    public static func unchanged(_ key: [UInt8], since revision: Int64) -> EtcdCompare {
        EtcdCompare(key: key, .modRevision(revision), .equal)
    }

    /// The `Compare` object of a transaction request.
    var requestObject: EtcdJSON.Object {
        let (targetName, field, operand): (String, String, JSONValue) =
            switch target {
            case .createRevision(let revision): ("CREATE", "create_revision", EtcdJSON.text(revision))
            case .modRevision(let revision): ("MOD", "mod_revision", EtcdJSON.text(revision))
            case .version(let version): ("VERSION", "version", EtcdJSON.text(version))
            case .value(let value): ("VALUE", "value", EtcdJSON.base64(value))
            case .lease(let lease): ("LEASE", "lease", EtcdJSON.text(lease))
            }
        return EtcdJSON.object([
            ("key", EtcdJSON.base64(key)), ("result", .string(relation.rawValue)), ("target", .string(targetName)),
            (field, operand),
        ])
    }
}
