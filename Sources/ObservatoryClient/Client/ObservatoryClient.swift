import Dispatch
import Foundation
import Observatory
import ObservatoryLogging
import ObservatorySockets
import ObservatoryWire

/// A connection to an `observatoryd` server that mirrors remote shared values
/// as local `Var`s, and offers every protocol request as an `async` call.
///
///     let client = try await ObservatoryClient.connect(ClientConfiguration(name: "sky-watcher"))
///     let color = client.variable("sky.color", default: "blue")
///     watcher.observe(color) { update, author in
///         if let remote = author as? Author { print("\(update.old) → \(update.new) by \(remote.name)") }
///     }
///     color <- "red"                       // sent to the server
///     try await client.set("sky.cloudy", true)
///
/// The client connects at once and keeps connecting: after a failure or a
/// broken connection it waits (``ReconnectBackoff``) and tries again, on the
/// next of the configured ``ClientConfiguration/endpoints`` when there are several. After
/// every reconnect it says hello and resumes every mirror and stream of
/// ``changes(of:slow:)`` from the last revision it saw: the server replays the
/// changes it missed, in order, with their real authors. When the server
/// cannot (another epoch, or more changes than its history holds), the mirrors
/// take fresh snapshots authored by a ``Reset``, and ``connectionState`` passes
/// through ``ConnectionState/reset(_:)``. Every phase of a connection is
/// bounded: the TCP connect by ``ClientConfiguration/connectTimeout``, the hello
/// and the resync by ``ClientConfiguration/pingTimeout``; an idle connection is
/// pinged, and a ping without reply counts as a dead connection. A connection
/// that overruns ends with a ``DisconnectReason`` naming the phase.
///
/// Writes while disconnected: a mirror keeps its latest local value and sends
/// it after the next resync, so the offline write wins over what others wrote
/// meanwhile. `async` requests never wait for a connection: made while the
/// client is not in sync, they fail at once with ``ClientError/notConnected(_:)``.
/// Writes carry a `requestId`: a write whose reply a broken connection took is
/// sent again after the reconnect, and the server applies it once.
///
/// Lifetime: the client runs (and reconnects) until ``close()``; call it when
/// you are done. Mirrors live as long as their client. ``reconnectNow()``
/// skips the backoff when the app comes to the foreground or the network changes.
///
/// Thread safety: every method may be called from any thread. How the work is
/// divided, and why:
/// - **Decisions** are plain values under a lock, never calling out while it is
///   held: `ClientMachine` (phase, deadlines, requests, mirrors, watchers,
///   authors, resume marks) in this client's `Locked` box, each mirror's
///   `MirrorState` in its mirror's. Whatever they decide (send, apply,
///   announce) is done after the lock is released.
/// - **All I/O and all timing** happen on the client's one I/O thread
///   (`ClientEventLoop`), never on a Swift concurrency or Dispatch worker: it
///   connects (blocking, up to the connect timeout), reads and writes the
///   non-blocking socket, applies every frame in order before reading the next,
///   pings an idle link, sleeps the backoff, and resumes waiters whose time is
///   up. Other threads hand it work by queueing a frame on the link and waking it.
/// - **Everything the program observes** (mirror updates, ``connectionState``,
///   ``errors``) runs on the delivery queue, in order; ``waitUntilDelivered()``
///   waits for it.
/// - **`async` callers** suspend on a continuation that the I/O thread resumes
///   (a request's reply, a state change, a deadline); no task or timer of the
///   client's own runs in the background.
public final class ObservatoryClient: Sendable {
    /// The machine, and the callers of `waitUntilSynchronized` waiting for its state to change.
    struct State {
        var machine: ClientMachine<ServerLink>
        var stateChanges = StateChangeGate(reached: 0)
    }

    /// Where the server is and how the client behaves.
    public let configuration: ClientConfiguration
    /// The connection's state; observe it to see connects, disconnects and
    /// resyncs. It changes on the delivery queue, after the updates of a resync.
    /// Read it, never set it: setting it does not change the connection.
    public let connectionState: Var<ConnectionState>
    /// Errors that no caller can catch: remote values that do not decode as a
    /// mirror's type, and mirror writes that the server refused. Sent on the
    /// delivery queue, and logged.
    public let errors: Messenger<ClientError>
    /// Conflict reports: the changes by others that this client's mirror
    /// writes replaced, or that replaced them (see ``ConflictReport``). Sent on
    /// the delivery queue.
    public let conflicts: Messenger<ConflictReport>
    let deliveryQueue: DispatchQueue
    let logger: Logger
    let state: Locked<State>
    /// The I/O thread's poller; nil when the kernel refused one (the client then never connects).
    let eventLoop: ClientEventLoop?
    /// The offline store, when ``ClientConfiguration/offlineDirectory`` names one.
    let offline: OfflinePersistence?

    /// Creates a client and starts connecting in the background.
    ///
    /// Use ``connect(_:timeout:)`` to wait for the first connection, or
    /// ``waitUntilSynchronized(timeout:)``.
    public init(configuration: ClientConfiguration) {
        self.configuration = configuration
        self.logger = configuration.logger
        self.connectionState = Var(ConnectionState.disconnected(.notStarted))
        self.errors = Messenger()
        self.conflicts = Messenger()
        self.deliveryQueue = DispatchQueue(label: "observatory.client.delivery", target: configuration.deliveryQueue)
        self.state = Locked(
            State(
                machine: ClientMachine(
                    endpointCount: configuration.endpoints.count, policy: ConnectionPolicy(configuration))))
        self.offline = configuration.offlineDirectory.map {
            OfflinePersistence(directory: $0, limit: configuration.offlineStoreLimit)
        }
        let eventLoop: ClientEventLoop?
        let failure: SocketError?
        do throws(SocketError) {
            (eventLoop, failure) = (try ClientEventLoop(), nil)
        } catch {
            (eventLoop, failure) = (nil, error)
        }
        self.eventLoop = eventLoop
        offline?.reportErrors { [weak self] in self?.report($0) }
        guard let eventLoop else {
            setPhase(.disconnected(.connectionFailed(failure?.description ?? "no event loop")))
            return
        }
        let thread = Thread { [self] in runConnectionThread(eventLoop) }
        thread.name = "observatory-client"
        thread.start()
    }

    /// Creates a client and waits until it is connected and in sync.
    ///
    /// - Throws: ``ClientError/connectionFailed(_:)`` when the client does not
    ///   reconnect and the first attempt fails, ``ClientError/timedOut(_:)``
    ///   after `timeout`. The client is closed when this throws.
    public static func connect(_ configuration: ClientConfiguration, timeout: Duration = .seconds(10))
        async throws(ClientError) -> ObservatoryClient
    {
        let client = ObservatoryClient(configuration: configuration)
        do {
            try await client.waitUntilSynchronized(timeout: timeout)
        } catch {
            client.close()
            throw error
        }
        return client
    }

    /// The state of the connection right now (``connectionState`` follows it on the delivery queue).
    public var currentState: ConnectionState { state.withLock { $0.machine.announced } }

    /// The `Author` of this client's own session while connected: the author the
    /// server stamps on this client's changes.
    public var localAuthor: Author? { state.withLock { $0.machine.authors.localAuthor } }

    /// Waits until the client is connected, every mirror is in sync, and every
    /// change the server had made when this was called has reached the mirrors
    /// and streams.
    ///
    /// It waits for the connection's state to change (no polling), then sends a
    /// `ping`: the server answers it after every event up to the revision in its
    /// reply (docs/protocol.md, "Progress"), and the mirrors have applied those events
    /// once the delivery queue has run.
    ///
    /// - Throws: ``ClientError/closed``; ``ClientError/connectionFailed(_:)``
    ///   when the connection failed and the client does not reconnect;
    ///   ``ClientError/timedOut(_:)`` after `timeout`.
    public func waitUntilSynchronized(timeout: Duration = .seconds(10)) async throws(ClientError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (phase, isClosed, link, changes) = state.withLock {
                ($0.machine.announced, $0.machine.isClosed, $0.machine.settledLink, $0.stateChanges.reached)
            }
            if isClosed { throw .closed }
            if let link, phase == .connected, await confirmProgress(on: link) {
                await waitUntilDelivered()
                return
            }
            // Without an I/O thread nothing will change: fail as a client that does not reconnect.
            if case .disconnected(let reason) = phase, reason != .notStarted,
                !configuration.reconnects || eventLoop == nil
            {
                throw .connectionFailed(reason.description)
            }
            guard ContinuousClock.now < deadline else {
                let servers = configuration.endpoints.map(\.description).joined(separator: ", ")
                throw .timedOut("not in sync with \(servers) after \(timeout)")
            }
            await waitForStateChange(after: changes, until: deadline)
        }
    }

    /// Waits until everything the client has received so far has reached the
    /// observers: every mirror update, ``connectionState`` change and ``errors``
    /// message already handed to the delivery queue has been sent.
    ///
    /// A barrier on the delivery queue, for tests and programs that want to look
    /// at the mirrors after an event instead of after a while:
    ///
    ///     try await client.ping()              // the server's events up to now have arrived
    ///     await client.waitUntilDelivered()    // and every observer has heard of them
    ///     #expect(seen.messages.map(\.new) == [1, 2, 3])
    ///
    /// To also wait for the server's changes, use ``waitUntilSynchronized(timeout:)``,
    /// which ends with this.
    public func waitUntilDelivered() async {
        await withCheckedContinuation { continuation in deliveryQueue.async { continuation.resume() } }
    }

    /// Pings on `link` and records the reply's revision as every target's progress;
    /// false if the link ended first.
    private func confirmProgress(on link: ServerLink) async -> Bool {
        guard case .success(let reply) = await request(.ping, on: link),
            case .ping(let revision, _)? = try? reply.payload(for: .ping)
        else { return false }
        state.withLock { $0.machine.progressed(to: revision, generation: link.generation) }
        return true
    }

    /// Returns once the connection's state has changed since `changes` was read, or at `deadline`.
    private func waitForStateChange(after changes: Int64, until deadline: ContinuousClock.Instant) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                guard !state.machine.isClosed, ContinuousClock.now < deadline else { return true }
                // Answered at once when the state changed since `changes` was read.
                return !state.stateChanges.wait(for: changes + 1, until: deadline, continuation).isEmpty
            }
            if resumeNow {
                continuation.resume()
            } else {
                // The I/O thread sleeps until its next timer: make it see this deadline.
                eventLoop?.wake()
            }
        }
    }

    /// Resumes the waiters whose deadline has passed; returns the next deadline.
    func expireWaiters() -> ContinuousClock.Instant? {
        let (expired, next) = state.withLock { state in
            (state.stateChanges.expire(at: ContinuousClock.now), state.stateChanges.nextDeadline)
        }
        for woken in expired { woken.waiter.resume() }
        return next
    }

    /// Wakes every caller of `waitUntilSynchronized` to look at the state again.
    func stateChanged() {
        let woken = state.withLock { $0.stateChanges.advance(to: $0.stateChanges.reached + 1) }
        for each in woken { each.waiter.resume() }
    }

    /// Closes the connection and stops reconnecting. Waiting requests fail with
    /// ``ClientError/connectionLost(_:)``, streams of ``changes(of:slow:)`` finish,
    /// and the offline store (if any) is saved before this returns.
    public func close() {
        let (link, watchers, requests) = state.withLock { $0.machine.close() }
        link?.end(.closed)
        eventLoop?.wake()
        for watcher in watchers { watcher.finish() }
        for completion in requests { completion(.failure(.connectionLost(.closed))) }
        publish(.disconnected(.closed))
        stateChanged()
        offline?.saveNow()
    }

    // MARK: Publishing

    func setPhase(_ phase: ConnectionState) {
        let changed = state.withLock { $0.machine.announce(phase) }
        guard changed else { return }
        logger.log(.debug, "connection state: \(phase)")
        publish(phase)
        stateChanged()
    }

    func publish(_ phase: ConnectionState) {
        deliveryQueue.async { [connectionState] in
            connectionState.value = phase
        }
    }

    /// Logs an error and sends it to ``errors`` on the delivery queue.
    func report(_ error: ClientError) {
        logger.log(.warning, error.description)
        deliveryQueue.async { [errors] in
            errors.send(error)
        }
    }
}
