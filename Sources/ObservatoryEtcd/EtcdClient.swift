#if canImport(Glibc)
    import Glibc
#endif

/// A client of an etcd v3 cluster through its JSON gateway: reads, writes,
/// transactions, leases and status, over a pool of keep-alive HTTP/1.1
/// connections to any of the members.
///
/// Every call blocks its thread until etcd answers or `requestTimeout` passes,
/// never longer, except those with a completion (`transaction(_:completion:)`,
/// `range(_:revision:limit:completion:)`), which one thread of the client's
/// carries out for any number of callers at once: a member that cannot be reached, or cannot answer (no leader,
/// no quorum), makes the client try the next one while time remains, then
/// fail with `EtcdError.Code.unavailable`. A write that was sent but not
/// answered in time is never sent again: its error says `mayHaveBeenApplied`.
///
/// ```swift
/// let client = try EtcdClient(urls: ["http://10.0.0.1:2379", "http://10.0.0.2:2379"])
/// let result = try client.put(Array("color".utf8), Array("blue".utf8))
/// let keys = try client.range(.prefix("sky/"))
/// ```
///
/// Thread safety: any number of threads may call it at once; each request
/// takes its own connection from the pool (a `Locked` box held only to take or
/// return one), so requests run in parallel and none waits for another.
public final class EtcdClient: Sendable {
    /// Whether a request may be sent again after it may have reached a member.
    private enum Kind {
        /// Reading, or repeating it changes nothing (a keep-alive, a revoke).
        case idempotent
        /// Changes data: sent at most once unless it surely was not applied.
        case write
    }

    /// The configuration the client was created with.
    public let configuration: EtcdClientConfiguration
    private let pool: EtcdConnectionPool
    /// Carries out the calls with a completion, on one thread of the client's.
    private let exchanges: EtcdExchangeLoop

    /// Creates a client; it connects on the first request.
    public init(configuration: EtcdClientConfiguration) {
        self.configuration = configuration
        pool = EtcdConnectionPool(
            endpoints: configuration.endpoints,
            maximumIdlePerEndpoint: configuration.maximumIdleConnectionsPerEndpoint)
        exchanges = EtcdExchangeLoop(pool: pool, configuration: configuration)
    }

    /// Creates a client of the members at `urls` (`http://host:port`).
    ///
    /// - Throws: `EtcdError` when a URL is not `http://host:port` or there is none.
    public convenience init(urls: [String], requestTimeout: Duration = .seconds(5)) throws(EtcdError) {
        self.init(configuration: try EtcdClientConfiguration(urls: urls, requestTimeout: requestTimeout))
    }

    deinit {
        exchanges.stop()
        pool.close()
    }

    /// Closes the idle connections and fails the calls with a completion still
    /// under way (`canceled`); later requests open new ones.
    public func close() {
        exchanges.stop()
        pool.close()
    }

    /// Reads the keys of `range`, at `revision` (0: the latest), at most `limit` of them (0: all).
    ///
    /// - Throws: `EtcdError`: `compacted` when `revision` is older than the
    ///   oldest kept, `unavailable` when no member answered in time.
    public func range(_ range: EtcdKeyRange, revision: Int64 = 0, limit: Int64 = 0) throws(EtcdError)
        -> EtcdRangeResult
    {
        let operation = EtcdOperation.range(range, revision: revision, limit: limit)
        return try EtcdRangeResult(json: call("/v3/kv/range", operation.requestObject, .idempotent))
    }

    /// Reads the keys of `range` as `range(_:revision:limit:)` does, without
    /// blocking the calling thread: `completion` gets the answer on the
    /// client's own thread of exchanges, and must return quickly.
    public func range(
        _ range: EtcdKeyRange, revision: Int64 = 0, limit: Int64 = 0,
        completion: @escaping @Sendable (Result<EtcdRangeResult, EtcdError>) -> Void
    ) {
        let operation = EtcdOperation.range(range, revision: revision, limit: limit)
        exchanges.submit(
            path: "/v3/kv/range", body: EtcdJSON.bytes(of: operation.requestObject), isWrite: false,
            timeout: configuration.requestTimeout
        ) { answer in
            completion(
                answer.flatMap { object in Result { () throws(EtcdError) in try EtcdRangeResult(json: object) } })
        }
    }

    /// Reads one key; nil when it does not exist.
    public func get(_ key: [UInt8]) throws(EtcdError) -> EtcdKeyValue? {
        try range(.key(key)).keyValues.first
    }

    /// Writes `value` at `key`, attached to `lease` (0: none).
    ///
    /// - Parameter returnPrevious: whether the result carries the key as it was.
    /// - Throws: `EtcdError`: `leaseNotFound` when the lease is gone,
    ///   `unavailable` (perhaps `mayHaveBeenApplied`) when no member answered in time.
    @discardableResult
    public func put(_ key: [UInt8], _ value: [UInt8], lease: Int64 = 0, returnPrevious: Bool = false)
        throws(EtcdError) -> EtcdPutResult
    {
        let operation = EtcdOperation.put(key: key, value: value, lease: lease, returnPrevious: returnPrevious)
        return try EtcdPutResult(json: call("/v3/kv/put", operation.requestObject, .write))
    }

    /// Deletes the keys of `range`.
    ///
    /// - Parameter returnPrevious: whether the result carries the deleted keys as they were.
    @discardableResult
    public func deleteRange(_ range: EtcdKeyRange, returnPrevious: Bool = false) throws(EtcdError)
        -> EtcdDeleteResult
    {
        let operation = EtcdOperation.deleteRange(range, returnPrevious: returnPrevious)
        return try EtcdDeleteResult(json: call("/v3/kv/deleterange", operation.requestObject, .write))
    }

    /// Runs `transaction` atomically: its compares, then one of its branches.
    ///
    /// - Throws: `EtcdError`: `requestFailed` for a malformed transaction (such
    ///   as one key written twice), `unavailable` when no member answered in time.
    public func transaction(_ transaction: EtcdTransaction) throws(EtcdError) -> EtcdTransactionResult {
        let kind: Kind = transaction.isWrite ? .write : .idempotent
        return try EtcdTransactionResult(json: call("/v3/kv/txn", transaction.requestObject, kind))
    }

    /// Runs `transaction` as `transaction(_:)` does, without blocking the
    /// calling thread: `completion` gets the answer (or the failure) on the
    /// client's own thread of exchanges, which serves any number of calls in
    /// flight at once, so it must return quickly and never block.
    public func transaction(
        _ transaction: EtcdTransaction,
        completion: @escaping @Sendable (Result<EtcdTransactionResult, EtcdError>) -> Void
    ) {
        exchanges.submit(
            path: "/v3/kv/txn", body: EtcdJSON.bytes(of: transaction.requestObject), isWrite: transaction.isWrite,
            timeout: configuration.requestTimeout
        ) { answer in
            completion(
                answer.flatMap { object in Result { () throws(EtcdError) in try EtcdTransactionResult(json: object) } })
        }
    }

    /// Grants a lease of `ttl` seconds; keys attached to it go when it expires
    /// unless it is kept alive (see `EtcdLeaseKeeper`).
    public func grantLease(ttl: Int64) throws(EtcdError) -> EtcdLease {
        try EtcdLease(json: call("/v3/lease/grant", ["TTL": EtcdJSON.text(ttl)], .write))
    }

    /// Revokes lease `id`, deleting the keys attached to it. A lease already
    /// gone is not an error: the outcome is the same.
    public func revokeLease(_ id: Int64) throws(EtcdError) {
        do {
            _ = try call("/v3/lease/revoke", ["ID": EtcdJSON.text(id)], .idempotent)
        } catch  where error.code == .leaseNotFound {
            return
        }
    }

    /// Renews lease `id` once, for its full time to live again.
    ///
    /// - Parameter timeout: replaces the request timeout for this call: a
    ///   keeper waits no longer than the lease has left.
    /// - Returns: the lease with the time to live granted again.
    /// - Throws: `EtcdError`: `leaseNotFound` when it expired or was revoked.
    public func keepAliveOnce(_ id: Int64, timeout: Duration? = nil) throws(EtcdError) -> EtcdLease {
        try EtcdLease(
            keepAliveAnswer: call("/v3/lease/keepalive", ["ID": EtcdJSON.text(id)], .idempotent, timeout: timeout))
    }

    /// Compacts the history: revisions before `revision` can no longer be read
    /// or watched from (they answer `compacted`). Keeps the database small.
    public func compact(_ revision: Int64) throws(EtcdError) {
        _ = try call("/v3/kv/compaction", ["physical": true, "revision": EtcdJSON.text(revision)], .idempotent)
    }

    /// The status of the first member that answers: the cluster id, the leader, the revision.
    public func status() throws(EtcdError) -> EtcdStatus {
        try EtcdStatus(json: call("/v3/maintenance/status", [:], .idempotent))
    }

    /// The endpoint indices in the order to try them (for the watch's streams).
    func attemptOrder() -> [Int] {
        pool.attemptOrder()
    }

    /// Notes that endpoint `index` failed, so requests start with the next one.
    func demote(_ index: Int) {
        pool.demote(index)
    }

    /// The longest one attempt of a read may take: a share of the request
    /// timeout per member, at least a second, so that a member that accepts
    /// but never answers leaves time for the others.
    private func attemptTimeout(_ requestTimeout: Duration) -> Duration {
        max(requestTimeout / max(configuration.endpoints.count, 1), .seconds(1))
    }

    /// Sends one request to the members in turn until one answers, within the request timeout.
    private func call(_ path: String, _ request: EtcdJSON.Object, _ kind: Kind, timeout: Duration? = nil)
        throws(EtcdError) -> EtcdJSON.Object
    {
        let requestTimeout = timeout ?? configuration.requestTimeout
        let deadline = ContinuousClock.now + requestTimeout
        let body = EtcdJSON.bytes(of: request)
        var lastFailure: EtcdError?
        while true {
            for index in pool.attemptOrder() where ContinuousClock.now < deadline {
                // A read may be asked again elsewhere, so one silent member must not
                // use up all its time; a write gets all of it, since it is sent once.
                let attemptDeadline =
                    kind == .idempotent ? min(deadline, .now + attemptTimeout(requestTimeout)) : deadline
                do {
                    return try attempt(path, body, kind, on: index, until: attemptDeadline)
                } catch {
                    lastFailure = error
                    // Another member may answer what this one could not, if sending again is safe.
                    let retry = error.allowsRetryElsewhere || (kind == .idempotent && error.code == .unavailable)
                    guard retry else { throw error }
                    pool.demote(index)
                }
            }
            let pause = configuration.retryPause
            guard ContinuousClock.now + pause < deadline, !pool.isClosed else { break }
            let (seconds, attoseconds) = pause.components
            usleep(UInt32(clamping: seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
        }
        let detail = lastFailure.map { ": \($0.message)" } ?? ""
        throw EtcdError.unavailable(
            "no etcd member answered within \(requestTimeout)\(detail)",
            mayHaveBeenApplied: lastFailure?.mayHaveBeenApplied ?? false)
    }

    /// Sends the request to endpoint `index` and reads its answer.
    private func attempt(
        _ path: String, _ body: [UInt8], _ kind: Kind, on index: Int, until deadline: ContinuousClock.Instant
    ) throws(EtcdError) -> EtcdJSON.Object {
        let endpoint = pool.endpoints[index]
        let isWrite = kind == .write
        let connectDeadline = min(deadline, ContinuousClock.now + configuration.connectTimeout)
        var connection: EtcdConnection
        do {
            connection = try pool.take(index, until: connectDeadline)
        } catch {
            throw EtcdError.transport(error.reason, endpoint: endpoint, requestSent: false, isWrite: isWrite)
        }
        let request = EtcdConnection.request(path: path, body: body, endpoint: endpoint)
        let response: EtcdConnection.Response
        do {
            let (answer, reusable) = try connection.exchange(request, until: deadline)
            response = answer
            if reusable { pool.giveBack(connection) } else { connection.close() }
        } catch {
            connection.close()
            throw EtcdError.transport(
                error.reason, endpoint: endpoint, requestSent: error.requestSent, isWrite: isWrite)
        }
        guard response.status == 200 else {
            throw EtcdError.gateway(status: response.status, body: response.body, isWrite: isWrite)
        }
        return try EtcdJSON.object(from: response.body)
    }
}
