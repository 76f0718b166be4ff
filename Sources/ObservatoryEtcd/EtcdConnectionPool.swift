import ObservatoryLocking

/// The idle keep-alive connections to each member, and which member to try first.
///
/// Requests take a connection out (or open a new one when none is idle), so each
/// connection serves one request at a time and any number of requests run in
/// parallel; a connection whose response ended cleanly comes back for the next.
///
/// Thread safety: the state is in a `Locked` box (a pthread mutex ThreadSanitizer understands), held only to take, return or swap
/// values; connecting and closing happen outside it.
final class EtcdConnectionPool: Sendable {
    private struct State: Sendable {
        var idle: [[EtcdConnection]]
        var preferred = 0
        var isClosed = false
    }

    /// The members, in the order the client was given them.
    let endpoints: [EtcdEndpoint]
    private let maximumIdlePerEndpoint: Int
    private let state: Locked<State>

    /// Creates an empty pool for `endpoints`, keeping at most `maximumIdlePerEndpoint` idle connections to each.
    init(endpoints: [EtcdEndpoint], maximumIdlePerEndpoint: Int) {
        self.endpoints = endpoints
        self.maximumIdlePerEndpoint = maximumIdlePerEndpoint
        state = Locked(State(idle: Array(repeating: [], count: endpoints.count)))
    }

    /// The endpoint indices in the order to try them: the preferred one first,
    /// then the others in turn.
    func attemptOrder() -> [Int] {
        let preferred = state.withLock { $0.preferred }
        return endpoints.indices.map { (preferred + $0) % endpoints.count }
    }

    /// Notes that endpoint `index` failed, so later requests start with the next
    /// one, unless another request already moved on.
    func demote(_ index: Int) {
        state.withLock { state in
            if state.preferred == index { state.preferred = (index + 1) % endpoints.count }
        }
    }

    /// Whether `close()` was called.
    var isClosed: Bool {
        state.withLock { $0.isClosed }
    }

    /// An open connection to endpoint `index`: an idle one that is still
    /// usable, or a new one connected before `deadline`.
    func take(_ index: Int, until deadline: ContinuousClock.Instant) throws(EtcdConnection.Failure) -> EtcdConnection {
        while let connection = state.withLock({ $0.idle[index].popLast() }) {
            if !connection.isStale { return connection }
            connection.close()
        }
        return try EtcdConnection.open(to: endpoints[index], index: index, until: deadline)
    }

    /// Returns a connection whose last response ended cleanly, or closes it when
    /// the pool is full or closed.
    func giveBack(_ connection: EtcdConnection) {
        let kept = state.withLock { state in
            guard !state.isClosed, state.idle[connection.endpointIndex].count < maximumIdlePerEndpoint else {
                return false
            }
            state.idle[connection.endpointIndex].append(connection)
            return true
        }
        if !kept { connection.close() }
    }

    /// Closes every idle connection; connections in use close when their request ends.
    func close() {
        let idle = state.withLock { state in
            state.isClosed = true
            defer { state.idle = Array(repeating: [], count: endpoints.count) }
            return state.idle.flatMap { $0 }
        }
        for connection in idle { connection.close() }
    }
}
