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
/// Eleven stored properties: the phase and what was last announced of it, the
/// four tables (mirrors, watchers, authors, resume marks), each a concept of
/// the glossary, which server is next, and four small facts of the connection
/// (the next watcher id and link generation, the server's epoch, a pending
/// reset). Splitting them further would split decisions that read several at once.
struct ClientMachine<Link: ClientLink> {
    /// Where the connection stands; the link and its generation live here, so
    /// there is no link without a phase that says what it is for.
    enum Phase {
        /// Not started yet.
        case idle
        /// Opening a socket (or waiting to, after a failure).
        case connecting
        /// The link is open; the client says hello and resumes its observations.
        case resyncing(Link, generation: Int)
        /// Every mirror is in sync: requests may go out on the link.
        case synchronized(Link, generation: Int)
        /// The last link ended for `reason`; the client waits to reconnect (or stopped, when it does not).
        case disconnected(DisconnectReason)
        /// Closed by its owner: nothing more happens.
        case closed
    }

    /// What the client must do once a resync is over.
    struct Ready {
        /// Announce this reset before `connected`.
        var reset: Reset?
        /// Send these mirrors' unsent writes.
        var unsent: [any MirrorEndpoint]
        /// Observe these mirrors, made during the resync.
        var awaiting: [any MirrorEndpoint]
    }

    private(set) var phase = Phase.idle
    /// The state last announced to observers of `connectionState` (it includes a passing `reset`).
    private(set) var announced = ConnectionState.disconnected(.notStarted)
    private(set) var registry = MirrorRegistry()
    private(set) var authors = AuthorTable()
    private(set) var tracker = ResumeTracker()
    private(set) var endpoints: EndpointRotation
    private(set) var watchers: [Int: Watcher] = [:]
    private var nextWatcherIdentifier = 1
    private var nextGeneration = 1
    /// The epoch of the server this client last said hello to.
    private(set) var serverEpoch = ""
    /// Set during a resync when some target could not resume.
    private(set) var reset: Reset?

    /// A machine for a client of `endpointCount` servers, not started yet.
    init(endpointCount: Int = 1) {
        endpoints = EndpointRotation(count: endpointCount)
    }

    // MARK: The phase

    /// Whether the owner closed the client.
    var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    /// The current link, whatever it is doing.
    var link: Link? {
        switch phase {
        case .resyncing(let link, _), .synchronized(let link, _): link
        case .idle, .connecting, .disconnected, .closed: nil
        }
    }

    /// The current link, if it is synchronized and has not ended.
    var synchronizedLink: Link? {
        guard case .synchronized(let link, _) = phase, !link.hasEnded else { return nil }
        return link
    }

    /// The link, once every mirror has its snapshot or has resumed.
    var settledLink: Link? {
        registry.isSettled ? synchronizedLink : nil
    }

    /// The generation of the current link, whatever it is doing.
    private var generation: Int? {
        switch phase {
        case .resyncing(_, let generation), .synchronized(_, let generation): generation
        case .idle, .connecting, .disconnected, .closed: nil
        }
    }

    /// The link for a request, or why there is none.
    func linkForRequest() throws(ClientError) -> Link {
        if isClosed { throw .closed }
        guard let link = synchronizedLink else { throw .notConnected(announced) }
        return link
    }

    /// Records `state` as announced; false when it is already (or the client is closed).
    mutating func announce(_ state: ConnectionState) -> Bool {
        guard !isClosed, announced != state else { return false }
        announced = state
        return true
    }

    /// A connection attempt begins: returns the index of the server to connect to,
    /// or nil when the client is closed.
    mutating func connecting() -> Int? {
        guard !isClosed else { return nil }
        phase = .connecting
        return endpoints.current
    }

    /// The connection attempt failed before a link was made: the next attempt
    /// goes to the next server.
    mutating func connectFailed(_ reason: DisconnectReason) {
        guard !isClosed else { return }
        phase = .disconnected(reason)
        endpoints.advance()
    }

    /// A socket opened: returns the generation its link takes, or nil when the
    /// client was closed meanwhile. The shell makes the link outside the lock and
    /// hands it to ``opened(_:generation:)``.
    mutating func reserveGeneration() -> Int? {
        guard !isClosed else { return nil }
        defer { nextGeneration += 1 }
        return nextGeneration
    }

    /// `link`, made with a reserved `generation`, becomes the current link, and a
    /// new session begins (so every author is new). False when the client was closed meanwhile.
    mutating func opened(_ link: Link, generation: Int) -> Bool {
        guard !isClosed else { return false }
        phase = .resyncing(link, generation: generation)
        authors.removeAll()
        return true
    }

    /// The server answered hello: this client is `name` in `session`, in `epoch`.
    mutating func greeted(session: String, name: String, epoch: String) -> Author {
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

    /// Every `observe` of the resync on `link` is answered: the client is in sync,
    /// unless the link ended or the client closed meanwhile (nil).
    mutating func resyncEnded(on link: Link) -> Ready? {
        guard case .resyncing(let current, let generation) = phase, current === link, !link.hasEnded else {
            return nil
        }
        phase = .synchronized(link, generation: generation)
        let (unsent, awaiting) = registry.resyncEnded()
        return Ready(reset: reset, unsent: unsent, awaiting: awaiting)
    }

    /// `link` ended: no more sending on it, this client has no session, and the
    /// next attempt goes to the next server. Returns every mirror (each learns
    /// that its session ended), or nil for an old link.
    mutating func linkEnded(_ link: Link, reason: DisconnectReason) -> [any MirrorEndpoint]? {
        guard self.link === link else { return nil }
        if case .slowConsumer(let revision?) = reason, let generation {
            tracker.closedAsSlowConsumer(at: revision, generation: generation)
        }
        phase = .disconnected(reason)
        endpoints.advance()
        authors.sessionEnded()
        return registry.all
    }

    /// The owner closed the client: returns the link to end and the watchers to finish.
    mutating func close() -> (link: Link?, watchers: [Watcher]) {
        let link = self.link
        phase = .closed
        announced = .disconnected(.closed)
        return (link, takeWatchers())
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

    /// A ping reply on link `generation` said `revision`.
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
