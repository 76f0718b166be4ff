import ObservatoryLocking
import ObservatorySockets

/// Carries out the requests whose callers do not wait for them (`EtcdClient`'s
/// calls with a completion): one thread sends each request on a pooled
/// connection, then waits with `poll(2)` on all of them at once and hands each
/// its answer as it comes, so any number of requests are in flight on one thread.
///
/// One thread of the client's own rather than the caller's event loops: the
/// client knows nothing of a server's loops, its connections come from its own
/// pool, and one thread parses every answer fast enough for what etcd commits
/// (a few tens of thousands a second); the caller's completion runs on it, and
/// must not block. The thread starts with the first request and ends with `stop()`.
///
/// The rules of `EtcdClient`'s blocking calls hold: a request that fails on one
/// member goes to the next while that is safe (a read, or a write surely not
/// applied) and time remains, each round of members after `retryPause`; a write
/// waits for its member until its deadline, a read for its share of it.
/// Connecting to a member happens on the thread, bounded by `connectTimeout`
/// (rare: connections are kept alive and reused).
///
/// Thread safety: new requests and the thread are in a `Locked` box, held only
/// to add or take them; the requests in flight belong to the thread alone.
final class EtcdExchangeLoop: Sendable {
    /// What a request's caller is handed: etcd's answer, or why there is none.
    typealias Completion = @Sendable (Result<EtcdJSON.Object, EtcdError>) -> Void

    /// A request and where it stands among the members.
    struct Request: Sendable {
        let path: String
        let body: [UInt8]
        let isWrite: Bool
        let timeout: Duration
        let deadline: ContinuousClock.Instant
        /// The members still to try in this round, first the next.
        var order: [Int]
        /// Not sent again before this instant (a pause between rounds).
        var notBefore: ContinuousClock.Instant
        var lastFailure: EtcdError?
        let completion: Completion
    }

    /// A request sent on a connection, waiting for its answer.
    private struct Exchange {
        var connection: EtcdConnection
        let request: Request
        let deadline: ContinuousClock.Instant
    }

    private struct State {
        var inbox: [Request] = []
        /// The thread and what wakes its wait, while it runs.
        var running: (thread: EtcdBackgroundThread, waiter: SocketWaiter)?
    }

    private let state = Locked(State())
    private let pool: EtcdConnectionPool
    private let configuration: EtcdClientConfiguration

    /// A loop over `pool`'s connections, with `configuration`'s timeouts.
    init(pool: EtcdConnectionPool, configuration: EtcdClientConfiguration) {
        self.pool = pool
        self.configuration = configuration
    }

    /// Sends `body` to `path`, answering `completion` on the loop's thread.
    func submit(
        path: String, body: [UInt8], isWrite: Bool, timeout: Duration, completion: @escaping Completion
    ) {
        let now = ContinuousClock.now
        let request = Request(
            path: path, body: body, isWrite: isWrite, timeout: timeout, deadline: now + timeout,
            order: pool.attemptOrder(), notBefore: now, completion: completion)
        let waiter = state.withLock { state -> SocketWaiter? in
            if state.running == nil {
                guard let waiter = try? SocketWaiter() else { return nil }
                let thread = EtcdBackgroundThread(name: "etcd-exchanges") { [self] thread in run(thread, waiter) }
                state.running = (thread, waiter)
            }
            state.inbox.append(request)
            return state.running?.waiter
        }
        guard let waiter else {
            completion(.failure(.unavailable("cannot wait for etcd's answers: the process is out of file descriptors")))
            return
        }
        waiter.wake()
    }

    /// Ends the thread; the requests still under way fail with `canceled`.
    func stop() {
        let running = state.withLock { $0.running.take() }
        running?.thread.stop { running?.waiter.wake() }
        let left = state.withLock { state in
            defer { state.inbox = [] }
            return state.inbox
        }
        for request in left { request.completion(.failure(.canceled("the etcd client was closed"))) }
    }

    /// The loop: starts new requests, waits for answers, fails those out of time.
    private func run(_ thread: EtcdBackgroundThread, _ waiter: SocketWaiter) {
        var exchanges: [Int32: Exchange] = [:]
        var delayed: [Request] = []
        while !thread.isStopping {
            let now = ContinuousClock.now
            let arrived = state.withLock { state in
                defer { state.inbox = [] }
                return state.inbox
            }
            let due = delayed.filter { $0.notBefore <= now }
            delayed.removeAll { $0.notBefore <= now }
            for request in arrived + due { start(request, &exchanges, &delayed) }
            for (descriptor, exchange) in exchanges where exchange.deadline <= now {
                exchanges[descriptor] = nil
                exchange.connection.close()
                fail(exchange, "no answer within the request timeout", &exchanges, &delayed)
            }
            let next = (exchanges.values.map(\.deadline) + delayed.map(\.notBefore)).min()
            let timeout = next.map { min(EtcdConnection.milliseconds(until: $0) + 1, 1_000) } ?? 1_000
            let watches = exchanges.keys.map { SocketWaiter.Watch($0, for: .readable) }
            guard let outcome = try? waiter.wait(for: watches, timeoutMilliseconds: timeout) else { continue }
            for ready in outcome.ready {
                guard var exchange = exchanges[ready.descriptor] else { continue }
                do throws(EtcdConnection.Failure) {
                    guard let (response, reusable) = try exchange.connection.readAvailable() else {
                        exchanges[ready.descriptor] = exchange
                        continue
                    }
                    exchanges[ready.descriptor] = nil
                    if reusable { pool.giveBack(exchange.connection) } else { exchange.connection.close() }
                    answer(exchange, response, &exchanges, &delayed)
                } catch {
                    exchanges[ready.descriptor] = nil
                    exchange.connection.close()
                    fail(exchange, error.reason, &exchanges, &delayed)
                }
            }
        }
        for exchange in exchanges.values {
            exchange.connection.close()
            exchange.request.completion(.failure(.canceled("the etcd client was closed")))
        }
        for request in delayed { request.completion(.failure(.canceled("the etcd client was closed"))) }
    }

    /// Sends `request` to the next member of its round.
    private func start(_ request: Request, _ exchanges: inout [Int32: Exchange], _ delayed: inout [Request]) {
        var request = request
        let now = ContinuousClock.now
        guard now < request.deadline, let index = request.order.first else {
            retryOrFinish(request, &exchanges, &delayed)
            return
        }
        request.order.removeFirst()
        let endpoint = pool.endpoints[index]
        // A read may be asked again elsewhere, so one silent member must not use up all
        // its time; a write gets all of it, since it is sent once.
        let share = max(request.timeout / max(configuration.endpoints.count, 1), .seconds(1))
        let deadline = request.isWrite ? request.deadline : min(request.deadline, now + share)
        var connection: EtcdConnection
        do {
            connection = try pool.take(index, until: min(deadline, now + configuration.connectTimeout))
        } catch {
            let failure = EtcdError.transport(
                error.reason, endpoint: endpoint, requestSent: false, isWrite: request.isWrite)
            next(request, failure, index, &exchanges, &delayed)
            return
        }
        do {
            try connection.send(
                EtcdConnection.request(path: request.path, body: request.body, endpoint: endpoint), until: deadline)
        } catch {
            connection.close()
            let failure = EtcdError.transport(
                error.reason, endpoint: endpoint, requestSent: error.requestSent, isWrite: request.isWrite)
            next(request, failure, index, &exchanges, &delayed)
            return
        }
        exchanges[connection.socket.descriptor] = Exchange(connection: connection, request: request, deadline: deadline)
    }

    /// A complete HTTP answer to `exchange`.
    private func answer(
        _ exchange: Exchange, _ response: EtcdConnection.Response, _ exchanges: inout [Int32: Exchange],
        _ delayed: inout [Request]
    ) {
        let request = exchange.request
        do throws(EtcdError) {
            guard response.status == 200 else {
                throw EtcdError.gateway(status: response.status, body: response.body, isWrite: request.isWrite)
            }
            request.completion(.success(try EtcdJSON.object(from: response.body)))
        } catch {
            next(request, error, exchange.connection.endpointIndex, &exchanges, &delayed)
        }
    }

    /// The exchange's connection failed for `reason`.
    private func fail(
        _ exchange: Exchange, _ reason: String, _ exchanges: inout [Int32: Exchange], _ delayed: inout [Request]
    ) {
        let failure = EtcdError.transport(
            reason, endpoint: exchange.connection.endpoint, requestSent: true, isWrite: exchange.request.isWrite)
        next(exchange.request, failure, exchange.connection.endpointIndex, &exchanges, &delayed)
    }

    /// After member `index` failed with `error`: the next member when that is safe, or the failure.
    private func next(
        _ request: Request, _ error: EtcdError, _ index: Int, _ exchanges: inout [Int32: Exchange],
        _ delayed: inout [Request]
    ) {
        var request = request
        request.lastFailure = error
        // Another member may answer what this one could not, if sending again is safe.
        guard error.allowsRetryElsewhere || (!request.isWrite && error.code == .unavailable) else {
            request.completion(.failure(error))
            return
        }
        pool.demote(index)
        start(request, &exchanges, &delayed)
    }

    /// Every member of the round failed: another round after the pause while time remains.
    private func retryOrFinish(_ request: Request, _ exchanges: inout [Int32: Exchange], _ delayed: inout [Request]) {
        var request = request
        let now = ContinuousClock.now
        if now + configuration.retryPause < request.deadline, !pool.isClosed {
            request.order = pool.attemptOrder()
            request.notBefore = now + configuration.retryPause
            delayed.append(request)
            return
        }
        let detail = request.lastFailure.map { ": \($0.message)" } ?? ""
        request.completion(
            .failure(
                .unavailable(
                    "no etcd member answered within \(request.timeout)\(detail)",
                    mayHaveBeenApplied: request.lastFailure?.mayHaveBeenApplied ?? false)))
    }
}
