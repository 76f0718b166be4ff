/// An atomic conditional write: if every compare holds, etcd applies the
/// `success` operations, otherwise the `failure` ones, all at one revision.
///
/// ```swift
/// // Create `key` only if nobody has.
/// let created = try client.transaction(EtcdTransaction(
///     compares: [.absent(key)], success: [.put(key: key, value: value)]))
/// ```
public struct EtcdTransaction: Hashable, Sendable {
    /// The conditions, all of which must hold.
    public var compares: [EtcdCompare]
    /// The operations applied when every condition holds.
    public var success: [EtcdOperation]
    /// The operations applied otherwise (often a read of what is there instead).
    public var failure: [EtcdOperation]

    /// Creates a transaction.
    public init(compares: [EtcdCompare] = [], success: [EtcdOperation] = [], failure: [EtcdOperation] = []) {
        self.compares = compares
        self.success = success
        self.failure = failure
    }

    /// Whether either branch changes data.
    var isWrite: Bool {
        success.contains { $0.isWrite } || failure.contains { $0.isWrite }
    }

    /// The `TxnRequest` object.
    var requestObject: EtcdJSON.Object {
        EtcdJSON.object([
            ("compare", compares.isEmpty ? nil : .array(compares.map { .object($0.requestObject) })),
            ("success", success.isEmpty ? nil : .array(success.map { .object($0.transactionObject) })),
            ("failure", failure.isEmpty ? nil : .array(failure.map { .object($0.transactionObject) })),
        ])
    }
}
