import ObservatoryHTTP
import ObservatoryLocking
import ObservatorySockets

/// Watches a range of keys: one streaming HTTP connection, read by a thread of
/// its own, whose changes reach a callback in revision order.
///
/// When the stream breaks (its member died, a network failure), the watch
/// reports `interrupted` and opens a new one to any member, from the last
/// delivered revision + 1, so no event is lost or repeated. When etcd says the
/// start revision is compacted, it reports `compacted` and ends: read the
/// current state again and start a new watch after its revision.
///
/// ```swift
/// let snapshot = try client.range(.prefix("sky/"))
/// let watch = EtcdWatch(
///     client: client,
///     request: EtcdWatchRequest(range: .prefix("sky/"), startRevision: snapshot.header.revision + 1)
/// ) { update in
///     if case .events(let events) = update { apply(events) }
/// }
/// …
/// watch.cancel()
/// ```
///
/// A watch runs until `cancel()` or until etcd ends it (`compacted`,
/// `canceled`): its thread keeps it alive, so dropping the last reference
/// does not stop it.
///
/// Thread safety: `cancel()` may be called from any thread, also from the
/// callback. The callback runs on the watch's thread, one update at a time,
/// with no lock held. The socket in use is kept in a `Locked` box (a pthread mutex ThreadSanitizer understands) only so that
/// `cancel()` can shut it down.
public final class EtcdWatch: Sendable {
    /// What the watch tells its consumer.
    public enum Update: Hashable, Sendable {
        /// A stream was created when the store was at `revision`; the first one
        /// says the watch is in place.
        case created(revision: Int64)
        /// New events, in revision order, none delivered before.
        case events([EtcdWatchEvent])
        /// Every change up to `revision` has been delivered.
        case progress(revision: Int64)
        /// The stream broke, or cannot be opened; the watch keeps trying every
        /// member and will resume where it stopped. Reported once per outage:
        /// the next `created` says it is back.
        case interrupted(EtcdError)
        /// The start revision is compacted (etcd keeps nothing older than
        /// `compactRevision`): the watch has ended.
        case compacted(compactRevision: Int64)
        /// etcd ended or refused the watch for `reason`; the watch has ended.
        case canceled(reason: String)
    }

    /// What is watched, from which revision.
    public let request: EtcdWatchRequest
    private let socket = Locked<StreamSocket?>(nil)
    private let thread: Locked<EtcdBackgroundThread?> = Locked(nil)

    /// Starts watching; `onUpdate` is called on the watch's thread for every update.
    public init(client: EtcdClient, request: EtcdWatchRequest, onUpdate: @escaping @Sendable (Update) -> Void) {
        self.request = request
        let background = EtcdBackgroundThread(name: "etcd watch") { [weak self] thread in
            self?.run(client: client, thread: thread, onUpdate: onUpdate)
        }
        thread.withLock { $0 = background }
    }

    deinit {
        cancel()
    }

    /// Stops the watch promptly: shuts its connection down and waits for its
    /// thread to end (unless called from the callback). No update is delivered
    /// after it returns.
    public func cancel() {
        let background = thread.withLock { $0 }
        background?.stop {
            // Shut down under the lock, so the descriptor cannot be closed and reused meanwhile.
            socket.withLock { $0?.shutdown() }
        }
    }

    /// Streams, and streams again after each break, until canceled or ended by etcd.
    ///
    /// A break is reported once per outage (not once per failed attempt), and
    /// the pause between rounds over the members doubles up to a second while
    /// none of them answers.
    private func run(client: EtcdClient, thread: EtcdBackgroundThread, onUpdate: @Sendable (Update) -> Void) {
        var state = EtcdWatchState(startRevision: request.startRevision)
        let configuration = client.configuration
        var isStreaming = true
        var pause = configuration.retryPause
        while !thread.isStopping && !state.isFinished {
            for index in client.attemptOrder() where !thread.isStopping && !state.isFinished {
                do {
                    try stream(
                        to: configuration.endpoints[index], index: index, client: client, state: &state,
                        isStreaming: &isStreaming, thread: thread, onUpdate: onUpdate)
                } catch {
                    guard !thread.isStopping else { return }
                    // Asking again cannot help when etcd refused the request itself.
                    if error.code == .compacted {
                        onUpdate(.compacted(compactRevision: error.compactRevision ?? 0))
                        return
                    }
                    if error.code == .requestFailed {
                        onUpdate(.canceled(reason: error.message))
                        return
                    }
                    client.demote(index)
                    if isStreaming {
                        isStreaming = false
                        pause = configuration.retryPause
                        onUpdate(.interrupted(error))
                    }
                }
            }
            thread.pause(pause)
            pause = min(pause * 2, max(configuration.retryPause, .seconds(1)))
        }
    }

    /// One stream: connects, asks, and reads messages until it breaks or the watch ends.
    private func stream(
        to endpoint: EtcdEndpoint, index: Int, client: EtcdClient, state: inout EtcdWatchState,
        isStreaming: inout Bool, thread: EtcdBackgroundThread, onUpdate: @Sendable (Update) -> Void
    ) throws(EtcdError) {
        let configuration = client.configuration
        var connection: EtcdConnection
        do {
            connection = try EtcdConnection.open(
                to: endpoint, index: index, until: .now + configuration.connectTimeout)
        } catch {
            throw EtcdError.transport(error.reason, endpoint: endpoint, requestSent: false, isWrite: false)
        }
        let registered = socket.withLock { current in
            guard !thread.isStopping else { return false }
            current = connection.socket
            return true
        }
        defer {
            socket.withLock { $0 = nil }
            connection.close()
        }
        guard registered else { return }
        let body = EtcdJSON.bytes(of: request.createRequestObject(startRevision: state.resumeRevision))
        var request = HTTPRequest(method: "POST", target: "/v3/watch", body: body)
        request.headers.add(name: "Host", value: endpoint.hostHeader)
        request.headers.add(name: "Content-Type", value: "application/json")
        // etcd ends the streams of a member that lost its leader, instead of
        // leaving them silent while the cluster goes on elsewhere.
        request.headers.add(name: "Grpc-Metadata-Hasleader", value: "true")
        do {
            try connection.send(request.encoded(), until: .now + configuration.requestTimeout)
        } catch {
            throw EtcdError.transport(error.reason, endpoint: endpoint, requestSent: true, isWrite: false)
        }
        var status = 0
        var errorBody: [UInt8] = []
        var splitter = EtcdLineSplitter()
        var headDeadline: ContinuousClock.Instant? = .now + configuration.requestTimeout
        while !thread.isStopping {
            // Waits in short steps so a stop is noticed even if a shutdown did not wake the read.
            let part: HTTPResponsePart?
            do {
                part = try connection.nextPart(until: min(.now + .seconds(1), headDeadline ?? .now + .seconds(1)))
            } catch {
                throw EtcdError.transport(error.reason, endpoint: endpoint, requestSent: true, isWrite: false)
            }
            guard let part else {
                if let headDeadline, ContinuousClock.now >= headDeadline {
                    throw EtcdError.unavailable("etcd at \(endpoint) did not answer the watch in time")
                }
                continue
            }
            switch part {
            case .head(let head):
                status = head.status.code
                headDeadline = nil
            case .body(let bytes) where status != 200:
                errorBody += bytes.prefix(65_536 - errorBody.count)
            case .body(let bytes):
                for line in try splitter.append(bytes) {
                    guard let update = state.receive(try EtcdWatchResponse(line: line)) else { continue }
                    guard !thread.isStopping else { return }
                    if case .created = update { isStreaming = true }
                    onUpdate(Self.update(update))
                    if state.isFinished { return }
                }
            case .end:
                if status != 200 { throw EtcdError.gateway(status: status, body: errorBody, isWrite: false) }
                throw EtcdError.unavailable("etcd at \(endpoint) ended the watch stream")
            }
        }
    }

    /// The consumer's form of a state update.
    private static func update(_ update: EtcdWatchState.Update) -> Update {
        switch update {
        case .created(let revision): .created(revision: revision)
        case .events(let events): .events(events)
        case .progress(let revision): .progress(revision: revision)
        case .compacted(let compactRevision): .compacted(compactRevision: compactRevision)
        case .canceled(let reason): .canceled(reason: reason)
        }
    }
}
