/// A key and its value as etcd stores them, with the revisions that tell when
/// it was created and last changed.
public struct EtcdKeyValue: Hashable, Sendable {
    /// The key's bytes.
    public var key: [UInt8]
    /// The value's bytes (empty in a delete event's `kv`).
    public var value: [UInt8]
    /// The revision that created the key; 0 in a delete event.
    public var createRevision: Int64
    /// The revision of the last change to the key.
    public var modRevision: Int64
    /// How many times the key was written since it was created (1 after creation).
    public var version: Int64
    /// The lease the key is attached to, 0 for none.
    public var lease: Int64

    /// Creates a key-value.
    public init(
        key: [UInt8], value: [UInt8] = [], createRevision: Int64 = 0, modRevision: Int64 = 0, version: Int64 = 0,
        lease: Int64 = 0
    ) {
        self.key = key
        self.value = value
        self.createRevision = createRevision
        self.modRevision = modRevision
        self.version = version
        self.lease = lease
    }

    /// The key as UTF-8 text (invalid bytes replaced), for keys that are text.
    public var keyText: String { String(decoding: key, as: UTF8.self) }

    /// The value as UTF-8 text (invalid bytes replaced), for values that are text.
    public var valueText: String { String(decoding: value, as: UTF8.self) }

    /// Reads a `mvccpb.KeyValue` object.
    init(json: EtcdJSON.Object) throws(EtcdError) {
        self.init(
            key: try EtcdJSON.bytes(json, "key"), value: try EtcdJSON.bytes(json, "value"),
            createRevision: try EtcdJSON.integer(json, "create_revision"),
            modRevision: try EtcdJSON.integer(json, "mod_revision"), version: try EtcdJSON.integer(json, "version"),
            lease: try EtcdJSON.integer(json, "lease"))
    }

    /// Reads every object of the array field `name`.
    static func all(_ answer: EtcdJSON.Object, _ name: String) throws(EtcdError) -> [EtcdKeyValue] {
        var result: [EtcdKeyValue] = []
        for object in try EtcdJSON.objects(answer, name) {
            result.append(try EtcdKeyValue(json: object))
        }
        return result
    }
}
