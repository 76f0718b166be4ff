/// A granted lease: keys attached to it are deleted when it expires or is revoked.
public struct EtcdLease: Hashable, Sendable {
    /// The lease's identifier, to attach keys and to keep it alive.
    public var id: Int64
    /// Its time to live in seconds, as granted (etcd may raise a short one to its minimum).
    public var ttl: Int64
    /// The header of the answer that granted or renewed it.
    public var header: EtcdResponseHeader

    /// Creates a lease value.
    public init(id: Int64, ttl: Int64, header: EtcdResponseHeader = EtcdResponseHeader()) {
        self.id = id
        self.ttl = ttl
        self.header = header
    }

    /// Reads a `LeaseGrantResponse` or a `LeaseKeepAliveResponse` object.
    init(json: EtcdJSON.Object) throws(EtcdError) {
        self.init(
            id: try EtcdJSON.integer(json, "ID"), ttl: try EtcdJSON.integer(json, "TTL"),
            header: try EtcdResponseHeader(of: json))
    }

    /// Reads the answer to a keep-alive, `{"result": LeaseKeepAliveResponse}`.
    ///
    /// The gateway answers a keep-alive of an expired lease with HTTP 200 and
    /// no TTL (its zero value), not with an error: that is a lost lease.
    init(keepAliveAnswer answer: EtcdJSON.Object) throws(EtcdError) {
        guard let result = try EtcdJSON.optionalObject(answer, "result") else {
            throw EtcdError.invalidResponse("a keep-alive answer without result")
        }
        try self.init(json: result)
        guard ttl > 0 else {
            throw EtcdError(code: .leaseNotFound, message: "the lease \(id) does not exist: it expired or was revoked")
        }
    }
}
