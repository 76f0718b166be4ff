/// One change seen by a watch: a key written or deleted.
public struct EtcdWatchEvent: Hashable, Sendable {
    /// Whether the key was written or deleted.
    public enum Kind: Hashable, Sendable {
        /// The key was created or changed.
        case put
        /// The key was deleted (or its lease ended).
        case delete
    }

    /// Whether the key was written or deleted.
    public var kind: Kind
    /// The key after the change; for a delete, only its key and mod revision.
    public var keyValue: EtcdKeyValue
    /// The key before the change, when the watch asked for it and the key existed.
    public var previousKeyValue: EtcdKeyValue?

    /// Creates an event.
    public init(kind: Kind, keyValue: EtcdKeyValue, previousKeyValue: EtcdKeyValue? = nil) {
        self.kind = kind
        self.keyValue = keyValue
        self.previousKeyValue = previousKeyValue
    }

    /// The revision of the change.
    public var revision: Int64 { keyValue.modRevision }

    /// Reads an `mvccpb.Event` object; `type` is absent for a put (its zero value).
    init(json: EtcdJSON.Object) throws(EtcdError) {
        let kind: Kind
        switch try EtcdJSON.string(json, "type") {
        case "", "PUT": kind = .put
        case "DELETE": kind = .delete
        case let other: throw EtcdError.invalidResponse("a watch event of unknown type \(other)")
        }
        guard let keyValue = try EtcdJSON.optionalObject(json, "kv") else {
            throw EtcdError.invalidResponse("a watch event without kv")
        }
        var previous: EtcdKeyValue?
        if let previousObject = try EtcdJSON.optionalObject(json, "prev_kv") {
            previous = try EtcdKeyValue(json: previousObject)
        }
        self.init(kind: kind, keyValue: try EtcdKeyValue(json: keyValue), previousKeyValue: previous)
    }
}
