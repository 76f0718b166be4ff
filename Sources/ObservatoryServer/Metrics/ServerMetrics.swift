import ObservatoryWire

/// The server's counters for `/metrics` (docs/protocol.md, "HTTP on the same port").
///
/// Everything here is a relaxed atomic (`MetricCounter`) changed where the thing
/// happens; no label carries a key or a client's name, only fixed sets of values
/// (transports, ops, error codes, resume outcomes). What is cheaper to read than
/// to count (queued bytes, keys, the revision) is read at scrape time instead, and
/// so are the events each connection's queue counted under its own lock.
final class ServerMetrics: Sendable {
    /// What carries a session.
    enum Transport: String, CaseIterable, Sendable {
        /// The line protocol over TCP.
        case tcp
        /// The line protocol over a WebSocket.
        case websocket
        /// An event stream.
        case sse
        /// HTTP requests (REST, the page, health, metrics).
        case http
    }

    /// The open connections per transport.
    let connections: [Transport: MetricCounter] = Dictionary(
        uniqueKeysWithValues: Transport.allCases.map { ($0, MetricCounter()) })
    /// Requests answered per op, in `OperationKind.allCases` order.
    let requests: [MetricCounter] = OperationKind.allCases.map { _ in MetricCounter() }
    /// Error replies per code (the codes of docs/protocol.md; others count as `internal`).
    let errors: [String: MetricCounter] = Dictionary(
        uniqueKeysWithValues: ServerMetrics.errorCodes.map { ($0, MetricCounter()) })
    /// Changes made through sessions (writes that changed something, and session-bound keys ended).
    let changes = MetricCounter()
    /// Events queued by connections that have closed (open ones are read at scrape time).
    let eventsOfClosedConnections = MetricCounter()
    /// Expiring keys deleted because their time was up.
    let expired = MetricCounter()
    /// Connections closed as slow consumers.
    let slowConsumerCloses = MetricCounter()
    /// `observe` requests with `fromRevision` that replayed.
    let resumesReplayed = MetricCounter()
    /// `observe` requests with `fromRevision` that got a snapshot instead.
    let resumesReset = MetricCounter()

    /// The error codes of docs/protocol.md: the only values the `code` label takes.
    static let errorCodes = [
        "bad_frame", "frame_too_large", "unknown_op", "bad_request", "invalid_key", "value_too_large", "not_found",
        "conflict", "unauthenticated", "forbidden", "limit_exceeded", "slow_consumer", "shutting_down", "unavailable",
        "internal",
    ]

    /// Creates zeroed counters.
    init() {}

    /// Counts a request of `kind`.
    func countRequest(_ kind: OperationKind) {
        requests[Self.requestIndex(kind)].add()
    }

    /// Where `kind` is in `OperationKind.allCases`, and so its counter in `requests`,
    /// by a switch: `firstIndex(of:)` built the array of all cases and searched it
    /// on every request (callgrind: about 30 instructions a `set`).
    static func requestIndex(_ kind: OperationKind) -> Int {
        switch kind {
        case .hello: 0
        case .get: 1
        case .set: 2
        case .delete: 3
        case .observe: 4
        case .unobserve: 5
        case .list: 6
        case .ping: 7
        case .history: 8
        case .batch: 9
        }
    }

    /// Counts the change a write's reply reports: a set that changed the value,
    /// a delete; not an equal set or a duplicate of an earlier write.
    func countChange(_ payload: ReplyPayload) {
        switch payload {
        case .set(_, _, true, false), .delete(_, _, false): changes.add()
        default: break
        }
    }

    /// Counts the changes a batch made: its deletes and the sets that changed a value.
    ///
    /// Reads each operation where it lies in the array: `zip(_:_:)` copied every
    /// operation, its key and value, and destroyed the copy through its type's
    /// metadata (callgrind: about 250 instructions a key of a batch of 10).
    func countChanges(of operations: [BatchOperation<EncodedJSON>], _ results: [BatchResult]) {
        var changed = 0
        for index in 0..<min(operations.count, results.count) {
            switch operations[index] {
            case .delete: changed += 1
            case .set: if results[index].changed == true { changed += 1 }
            case .check: break
            }
        }
        if changed > 0 { changes.add(changed) }
    }

    /// Counts an error reply.
    func countError(_ code: ErrorCode) {
        (errors[code.rawValue] ?? errors["internal"])?.add()
    }
}
