import ObservatoryWire

/// Every decision of the client, as a plain value: where the connection stands,
/// which mirrors and watchers exist and what they wait for, who the authors
/// are, and how far each observed target has seen the server's changes.
///
/// ``ObservatoryClient`` keeps one inside its lock and carries out what its
/// methods answer (send on this link, apply to these mirrors, announce this
/// state) after the lock is released, so every rule is a unit test with a
/// stand-in link (`Link`) and no socket.
///
/// The connection's life is bounded phase by phase (``ConnectionClock``): the
/// shell's I/O thread asks ``next(at:)`` what to do when it has no link and
/// ``check(_:at:)`` on every turn while it serves one, and carries out the
/// ``Action`` it gets. Every input that leads to I/O (those two, a link that
/// opened, a reply, `reconnectNow`) answers with one ``Action``; inputs that
/// only record (a failed connect, a hello's answer) leave the next step to
/// ``next(at:)``; the routing inputs (an event, a resync) answer with the
/// mirrors and watchers they route to, which the shell feeds.
///
/// Fourteen stored properties: the phase and what was last announced of it, the
/// five tables (requests, mirrors, watchers, authors, resume marks), each a concept of
/// the glossary, which server is next, the connection's deadlines, and five
/// small facts of the connection (the next watcher id and link generation, the
/// server's epoch, a pending reset, the run of events waiting to be applied).
/// Splitting them further would split decisions that read several at once.
struct ClientMachine<Link: ClientLink> {
    private(set) var phase = Phase.idle
    /// The state last announced to observers of `connectionState` (it includes a passing `reset`).
    private(set) var announced = ConnectionState.disconnected(.notStarted)
    /// The requests on the current link that wait for their reply.
    private(set) var requests = RequestTable<RequestCompletion>()
    private(set) var registry = MirrorRegistry()
    private(set) var authors = AuthorTable()
    private(set) var tracker = ResumeTracker()
    private(set) var endpoints: EndpointRotation
    private(set) var clock: ConnectionClock
    private(set) var watchers: [Int: Watcher] = [:]
    private var nextWatcherIdentifier = 1
    private var nextGeneration = 1
    /// The epoch of the server this client last said hello to.
    private(set) var serverEpoch = ""
    /// Set during a resync when some target could not resume.
    private(set) var reset: Reset?
    /// The events of one revision that arrived and wait for the rest of their run.
    var run = EventRun()

    /// A machine for a client of `endpointCount` servers, not started yet.
    init(endpointCount: Int = 1, policy: ConnectionPolicy = ConnectionPolicy()) {
        endpoints = EndpointRotation(count: endpointCount)
        clock = ConnectionClock(policy: policy)
    }

    // MARK: The phase

    /// Records `state` as announced; false when it is already (or the client is closed).
    mutating func announce(_ state: ConnectionState) -> Bool {
        guard !isClosed, announced != state else { return false }
        announced = state
        return true
    }

    /// The connection thread has no link at `now`: what it does next. Connects
    /// when the client starts or its wait is over; after a failure or a broken
    /// link, backs off (or tries the next untried server, or stops, when it does
    /// not reconnect); stops when the client is closed.
    mutating func next(at now: ContinuousClock.Instant) -> Action {
        switch phase {
        case .idle:
            return connect(at: now)
        case .disconnected(let reason):
            guard clock.policy.reconnects else {
                // Without reconnects, the first round still tries every server once, as one attempt.
                return endpoints.hasUntriedServer ? connect(at: now) : .stop(reason)
            }
            let until = clock.nextAttempt(after: now)
            phase = .waiting(reason, until: until)
            return .backOff(reason, until: until)
        case .waiting(_, let until):
            return now >= until ? connect(at: now) : .wait(until: until)
        case .closed:
            return .stop(.closed)
        case .connecting, .greeting, .resyncing, .synchronized:
            return .none
        }
    }

    private mutating func connect(at now: ContinuousClock.Instant) -> Action {
        phase = .connecting
        clock.begin(at: now)
        return .connect(endpoint: endpoints.current, timeout: clock.policy.connectTimeout)
    }

    /// The connection attempt failed at `now` before a link was made (past the
    /// connect's deadline, it timed out): the next attempt goes to the next server.
    mutating func connectFailed(_ reason: DisconnectReason, at now: ContinuousClock.Instant) {
        guard !isClosed else { return }
        phase = .disconnected(clock.connectOverran(at: now) ? .connectTimeout : reason)
        endpoints.advance()
    }

    /// A turn of the connection thread while it serves `link`: ends the link when
    /// its phase overran its bound, pings it when it has been silent.
    mutating func check(_ link: Link, at now: ContinuousClock.Instant) -> Action {
        let stage: ConnectionClock.Stage
        switch phase {
        case .greeting(let current, _) where current === link: stage = .greeting
        case .resyncing(let current, _) where current === link: stage = .resyncing
        case .synchronized(let current, _) where current === link: stage = .synchronized
        default: return .none
        }
        guard !link.hasEnded else { return .none }
        switch clock.check(stage, at: now, lastReceived: link.lastReceived) {
        case .fine: return .none
        case .ping: return .ping(link)
        case .overran(let reason): return .end(link, reason)
        }
    }

    /// The owner asks to reconnect now (the app came to the foreground, the
    /// network changed): the backoff starts over; a wait for the next attempt
    /// ends at once; a synchronized link is pinged, so that a dead one is found
    /// within `pingTimeout`. Harmless in any phase.
    mutating func reconnectNow(at now: ContinuousClock.Instant) -> Action {
        switch phase {
        case .waiting(let reason, _):
            clock.reconnectRequested(skippingWait: false)
            phase = .waiting(reason, until: now)
            return .wake
        case .disconnected:
            clock.reconnectRequested(skippingWait: true)
            return .wake
        case .synchronized(let link, _):
            clock.reconnectRequested(skippingWait: false)
            return !link.hasEnded && clock.probe(at: now) ? .ping(link) : .none
        case .idle, .connecting, .greeting, .resyncing:
            clock.reconnectRequested(skippingWait: false)
            return .none
        case .closed:
            return .none
        }
    }

    /// A ping on link `generation` was answered with `revision`: the link is
    /// alive, and every target observed on it has seen everything up to `revision`.
    mutating func pingAnswered(revision: Int64, generation: Int) {
        if generation == self.generation { clock.pingAnswered() }
        tracker.progressed(to: revision, generation: generation)
    }

    /// A socket opened: returns the generation its link takes, or nil when the
    /// client was closed meanwhile. The shell makes the link outside the lock and
    /// hands it to ``opened(_:generation:)``.
    mutating func reserveGeneration() -> Int? {
        guard !isClosed else { return nil }
        defer { nextGeneration += 1 }
        return nextGeneration
    }

    /// `link`, made with a reserved `generation`, becomes the current link at
    /// `now`, and a new session begins (so every author is new): say hello on it.
    /// `stop(closed)` when the client was closed meanwhile.
    mutating func opened(_ link: Link, generation: Int, at now: ContinuousClock.Instant) -> Action {
        guard !isClosed else { return .stop(.closed) }
        phase = .greeting(link, generation: generation)
        clock.begin(at: now)
        authors.removeAll()
        return .sayHello(link)
    }

    /// The server answered hello on `link` at `now`: this client is `name` in
    /// `session`, in `epoch`, and the resync begins. Nil when `link` is no longer
    /// the one greeting (it ended, or the client closed).
    mutating func greeted(
        on link: Link, session: String, name: String, epoch: String, at now: ContinuousClock.Instant
    ) -> Author? {
        guard case .greeting(let current, let generation) = phase, current === link else { return nil }
        phase = .resyncing(link, generation: generation)
        clock.begin(at: now)
        clock.greeted()
        serverEpoch = epoch
        endpoints.connected()
        return authors.greeted(session: session, name: name)
    }

    /// A resync begins on the current link: returns the mirrors to observe and
    /// the watchers' targets (a watched key that is also mirrored is observed
    /// once, for both: a second resumed observe would replay its changes twice).
    mutating func resyncBegan() -> (mirrors: [String: [any MirrorEndpoint]], targets: Set<Target>) {
        registry.resyncBegan()
        reset = nil
        let targets = Set(watchers.values.map(\.target)).filter { target in
            guard case .key(let key) = target else { return true }
            return !registry.contains(key)
        }
        return (registry.byKey, targets)
    }

    /// Every `observe` of the resync on `link` is answered at `now`: the client is
    /// in sync, unless the link ended or the client closed meanwhile (nil).
    mutating func resyncEnded(on link: Link, at now: ContinuousClock.Instant) -> Ready? {
        guard case .resyncing(let current, let generation) = phase, current === link, !link.hasEnded else {
            return nil
        }
        phase = .synchronized(link, generation: generation)
        clock.begin(at: now)
        let (unsent, awaiting) = registry.resyncEnded()
        return Ready(reset: reset, unsent: unsent, awaiting: awaiting)
    }

    /// What the client must do when a link ended.
    struct Ended {
        /// Every mirror: each learns that its session ended.
        var mirrors: [any MirrorEndpoint]
        /// The requests that waited for a reply, oldest first: each fails.
        var requests: [RequestCompletion]
    }

    /// `link` ended: no more sending on it, this client has no session, and the
    /// next attempt goes to the next server. Nil for an old link.
    mutating func linkEnded(_ link: Link, reason: DisconnectReason) -> Ended? {
        guard self.link === link else { return nil }
        if case .slowConsumer(let revision?) = reason, let generation {
            tracker.closedAsSlowConsumer(at: revision, generation: generation)
        }
        phase = .disconnected(reason)
        endpoints.advance()
        authors.sessionEnded()
        // A run cut off by the end was never routed: the resume replays it whole.
        _ = run.take()
        return Ended(mirrors: registry.all, requests: requests.removeAll())
    }

    /// The owner closed the client: returns the link to end, the watchers to
    /// finish and the requests to fail.
    mutating func close() -> (link: Link?, watchers: [Watcher], requests: [RequestCompletion]) {
        let link = self.link
        phase = .closed
        announced = .disconnected(.closed)
        return (link, takeWatchers(), requests.removeAll())
    }

    // MARK: Requests

    /// A request is to go out on `link`: returns its id, or nil when `link` takes
    /// no more (it ended, or is no longer the current one).
    mutating func register(_ completion: @escaping RequestCompletion, on link: Link) -> Int64? {
        guard self.link === link, !link.hasEnded else { return nil }
        return requests.register(completion)
    }

    /// A reply to request `identifier` came on `link`: complete that request, or
    /// end the link when no request waits for it (the server is confused).
    mutating func replied(_ identifier: Int64, on link: Link) -> Action {
        guard self.link === link else { return .none }
        guard let completion = requests.complete(identifier) else {
            return .end(link, .protocolError("a reply to request \(identifier), which is not waiting"))
        }
        return .complete(completion)
    }

    /// Takes every watcher out (their streams are about to finish).
    mutating func takeWatchers() -> [Watcher] {
        defer { watchers.removeAll() }
        return Array(watchers.values)
    }

    // MARK: Mirrors

    /// Adds `mirror`; returns the link to observe it on now, or nil when it waits for the next resync.
    mutating func register(_ mirror: any MirrorEndpoint) -> Link? {
        let link = synchronizedLink
        registry.add(mirror, observeNow: link != nil)
        return link
    }

    /// `mirror` has a local write: true when it may send now, else it is kept for the next resync.
    mutating func mayWriteNow(_ mirror: any MirrorEndpoint) -> Bool {
        guard synchronizedLink != nil else {
            registry.keepUnsentWrite(of: mirror)
            return false
        }
        return true
    }

    /// `count` snapshots were asked for.
    mutating func snapshotsRequested(_ count: Int) {
        registry.snapshotsRequested(count)
    }

    /// One snapshot was answered.
    mutating func snapshotAnswered() {
        registry.snapshotAnswered()
    }

    // MARK: Observations and events

    /// The offline store kept where `key` was seen up to: its mirror resumes
    /// from there on the next resync (unless the key already has a mark).
    mutating func restoreResumePoint(_ point: ResumePoint, forKey key: String) {
        guard tracker.resumePoint(for: .key(key)) == nil else { return }
        tracker.observed(.key(key), revision: point.revision, epoch: point.epoch ?? "", generation: -1)
    }

    /// Where to resume `target` after a reconnect, if it was observed before.
    func resumePoint(for target: Target) -> ResumePoint? {
        tracker.resumePoint(for: target)
    }

    /// What the server is to do with `target`'s events when this client falls
    /// behind: `close` if any of its watchers asked for that (the strict reading).
    func slowPolicy(for target: Target) -> SlowPolicy {
        watchers.values.contains { $0.target == target && $0.slow == .close } ? .close : .coalesce
    }

    /// An `observe` of `target` on link `generation` was answered at `revision`.
    /// When a resume from `resumePoint` was asked for and refused, the resync is
    /// a reset: returns it (the same one for every target of the resync).
    ///
    /// A granted resume marks the target at its resume point, not at the reply's
    /// revision: the replayed changes follow the reply, and each moves the mark on,
    /// so a link that ends amid the replay resumes where the replay stopped.
    mutating func observed(
        _ target: Target, revision: Int64, generation: Int, resumePoint: ResumePoint?, resumed: Bool
    ) -> Reset? {
        let mark = resumed ? min(resumePoint?.revision ?? revision, revision) : revision
        tracker.observed(target, revision: mark, epoch: serverEpoch, generation: generation)
        guard let resumePoint, !resumed else { return nil }
        let reason =
            resumePoint.epoch == serverEpoch
            ? "the server no longer holds every change after revision \(resumePoint.revision)"
            : "the server's history changed (epoch \(resumePoint.epoch ?? "?") is now \(serverEpoch))"
        let current = reset ?? Reset(reason: reason)
        reset = current
        return current
    }

    /// A ping reply on link `generation` said `revision` (a ping of a caller, not of the liveness rule).
    mutating func progressed(to revision: Int64, generation: Int) {
        tracker.progressed(to: revision, generation: generation)
    }

    /// A change of `key` at `version` by `name` in `session` arrived on link
    /// `generation`: returns its author, and the mirrors and watchers it goes to.
    mutating func route(key: String, version: Int64, session: String, name: String, generation: Int)
        -> (author: Author, mirrors: [any MirrorEndpoint], watchers: [Watcher])
    {
        tracker.saw(key: key, version: version, generation: generation)
        let author = authors.author(session: session, name: name)
        return (author, registry.mirrors(of: key), watchers.values.filter { $0.matches(key) })
    }

    /// The one author object of `session`.
    mutating func author(session: String, name: String) -> Author {
        authors.author(session: session, name: name)
    }

    // MARK: Watchers

    /// Adds a watcher; returns its identifier.
    mutating func addWatcher(_ watcher: Watcher) -> Int {
        let identifier = nextWatcherIdentifier
        nextWatcherIdentifier += 1
        watchers[identifier] = watcher
        return identifier
    }

    /// Forgets a watcher; returns the target to `unobserve` and the link to do it on,
    /// when no other watcher or mirror needs the target.
    mutating func removeWatcher(_ identifier: Int) -> (target: Target, link: Link)? {
        guard let watcher = watchers.removeValue(forKey: identifier) else { return nil }
        let target = watcher.target
        let stillWatched = watchers.values.contains { $0.target == target }
        let stillMirrored = if case .key(let key) = target { registry.contains(key) } else { false }
        guard !stillWatched, !stillMirrored else { return nil }
        tracker.forget(target)
        guard let link = synchronizedLink else { return nil }
        return (target, link)
    }
}
