import Observatory
import ObservatoryWire
import Testing

@testable import ObservatoryClient

/// The client's decisions, with stand-in links and mirrors: no socket.
@Suite struct ClientMachineTests {
    /// A link that ends when told to, and says it last received when told to.
    final class StandInLink: ClientLink {
        let ended = Locked(false)
        let received = Locked(ClientMachineTests.start)
        var hasEnded: Bool { ended.value }
        var lastReceived: ContinuousClock.Instant { received.value }
    }

    /// The instant the tests' clocks start at.
    static let start = ContinuousClock.now

    /// `milliseconds` after ``start``.
    static func at(_ milliseconds: Int) -> ContinuousClock.Instant {
        start + .milliseconds(milliseconds)
    }

    /// A mirror that only has a key.
    final class StandInMirror: MirrorEndpoint {
        let key: String
        init(_ key: String) { self.key = key }
        var version: Int64 { 0 }
        var hasSnapshot: Bool { true }
        func applySnapshot(_ entry: ValueEntry?, author: Author?, reset: Reset?, generation: Int) {}
        func resume(generation: Int) {}
        func sessionEnded() {}
        func applyEvent(_ event: Event, author: Author, generation: Int) -> MirrorDelivery { .nothing }
        func sendUnsentWrite() {}
    }

    typealias Machine = ClientMachine<StandInLink>

    /// A machine whose first link is open and resynced, with `mirrors`.
    func synchronized(mirrors: [StandInMirror] = []) -> (Machine, StandInLink) {
        var machine = Machine()
        for mirror in mirrors { _ = machine.register(mirror) }
        _ = machine.next(at: Self.start)
        let link = StandInLink()
        _ = machine.open(link)
        _ = machine.greet(link)
        _ = machine.resyncBegan()
        _ = machine.resyncEnded(on: link, at: Self.start)
        return (machine, link)
    }

    private func keys(_ mirrors: [any MirrorEndpoint]?) -> [String] {
        (mirrors ?? []).map(\.key).sorted()
    }

    @Test func aNewMachineIsIdleAndAnnouncesNotStarted() {
        let machine = Machine()
        #expect(machine.announced == .disconnected(.notStarted))
        #expect(machine.link == nil)
        #expect(!machine.isClosed)
    }

    @Test func eachOpenedLinkTakesTheNextGeneration() {
        var machine = Machine()
        let first = machine.open(StandInLink())
        if let link = machine.link { _ = machine.linkEnded(link, reason: .closedByServer) }
        let second = machine.open(StandInLink())
        #expect(first == 1 && second == 2)
    }

    @Test func aGenerationReservedBeforeACloseOpensNothing() {
        var machine = Machine()
        let generation = machine.reserveGeneration()
        _ = machine.close()
        let opened = machine.opened(StandInLink(), generation: generation ?? 0, at: Self.start)
        #expect(opened == .stop(.closed))
        #expect(machine.link == nil)
    }

    @Test func requestsWaitForTheEndOfTheResync() throws {
        var machine = Machine()
        let link = StandInLink()
        _ = machine.open(link)
        #expect(throws: ClientError.notConnected(.disconnected(.notStarted))) { try machine.linkForRequest() }
        _ = machine.greet(link)
        _ = machine.resyncBegan()
        #expect(machine.resyncEnded(on: link, at: Self.start) != nil)
        #expect(try machine.linkForRequest() === link)
    }

    @Test func anEndedLinkTakesNoRequests() {
        let (machine, link) = synchronized()
        link.ended.withLock { $0 = true }
        #expect(machine.synchronizedLink == nil)
    }

    @Test func aResyncOfAnEndedOrReplacedLinkDoesNotSynchronize() {
        var machine = Machine()
        let old = StandInLink()
        _ = machine.open(old)
        _ = machine.linkEnded(old, reason: .closedByServer)
        let current = StandInLink()
        _ = machine.open(current)
        #expect(machine.resyncEnded(on: old, at: Self.start) == nil)
        current.ended.withLock { $0 = true }
        #expect(machine.resyncEnded(on: current, at: Self.start) == nil)
    }

    @Test func aClosedClientRefusesEverything() {
        var (machine, link) = synchronized()
        let (ended, _, _) = machine.close()
        #expect(ended === link)
        #expect(machine.isClosed)
        #expect(machine.announced == .disconnected(.closed))
        #expect(throws: ClientError.closed) { try machine.linkForRequest() }
        let announcedAfterClose = machine.announce(.connecting)
        #expect(!announcedAfterClose)
        _ = machine.connecting()
        let reopened = machine.open(StandInLink())
        #expect(reopened == nil)
    }

    @Test func closingFinishesEveryWatcher() {
        var (machine, _) = synchronized()
        let (_, continuation) = AsyncStream<RemoteChange>.makeStream()
        _ = machine.addWatcher(Watcher(target: .prefix("a."), continuation: continuation))
        #expect(machine.close().watchers.count == 1)
        #expect(machine.watchers.isEmpty)
    }

    @Test func announcingTheSameStateTwiceAnnouncesItOnce() {
        var machine = Machine()
        let firstAnnounced = machine.announce(.connecting)
        #expect(firstAnnounced)
        let repeatAnnounced = machine.announce(.connecting)
        #expect(!repeatAnnounced)
        let changeAnnounced = machine.announce(.connected)
        #expect(changeAnnounced)
    }

    @Test func aMirrorMadeWhileNotInSyncIsObservedAfterTheResync() {
        var machine = Machine()
        #expect(machine.register(StandInMirror("early")) == nil)
        let link = StandInLink()
        _ = machine.open(link)
        _ = machine.greet(link)
        let (mirrors, _) = machine.resyncBegan()
        #expect(mirrors.keys.sorted() == ["early"])
        #expect(machine.register(StandInMirror("during")) == nil)
        let ready = machine.resyncEnded(on: link, at: Self.start)
        #expect(keys(ready?.awaiting) == ["during"], "the resync observed `early`, not `during`")
    }

    @Test func aMirrorMadeInSyncIsObservedAtOnce() {
        var (machine, link) = synchronized()
        #expect(machine.register(StandInMirror("now")) === link)
    }

    @Test func aWriteWhileNotInSyncIsSentAfterTheResync() {
        var machine = Machine()
        let mirror = StandInMirror("door")
        _ = machine.register(mirror)
        let writesWhileOffline = machine.mayWriteNow(mirror)
        #expect(!writesWhileOffline)
        let link = StandInLink()
        _ = machine.open(link)
        _ = machine.greet(link)
        _ = machine.resyncBegan()
        #expect(keys(machine.resyncEnded(on: link, at: Self.start)?.unsent) == ["door"])
        let writesInSync = machine.mayWriteNow(mirror)
        #expect(writesInSync)
    }

    @Test func theLinkIsSettledOnlyOnceEverySnapshotHasCome() {
        var (machine, link) = synchronized()
        machine.snapshotsRequested(2)
        #expect(machine.settledLink == nil)
        machine.snapshotAnswered()
        machine.snapshotAnswered()
        #expect(machine.settledLink === link)
    }

    @Test func anEndedLinkEndsTheSessionAndTellsEveryMirror() {
        var (machine, link) = synchronized(mirrors: [StandInMirror("a"), StandInMirror("b")])
        #expect(machine.authors.localAuthor?.session == "s1")
        #expect(keys(machine.linkEnded(link, reason: .pingTimeout)?.mirrors) == ["a", "b"])
        #expect(machine.authors.localAuthor == nil)
        #expect(machine.link == nil)
        let again = machine.linkEnded(link, reason: .pingTimeout)
        #expect(again == nil, "only once, and never for an old link")
    }

    @Test func aWatchedKeyThatIsMirroredIsObservedOnlyForTheMirror() {
        var machine = Machine()
        _ = machine.register(StandInMirror("a.x"))
        let (_, continuation) = AsyncStream<RemoteChange>.makeStream()
        _ = machine.addWatcher(Watcher(target: .key("a.x"), continuation: continuation))
        _ = machine.addWatcher(Watcher(target: .prefix("a."), continuation: continuation))
        _ = machine.open(StandInLink())
        let (mirrors, targets) = machine.resyncBegan()
        #expect(mirrors.keys.sorted() == ["a.x"])
        #expect(targets == [.prefix("a.")])
    }

    @Test func aRefusedResumeInTheSameEpochIsAResetSharedByTheWholeResync() {
        var (machine, _) = synchronized()
        let point = ResumePoint(revision: 7, epoch: "e1")
        let first = machine.observed(.key("a"), revision: 50, generation: 1, resumePoint: point, resumed: false)
        let second = machine.observed(.key("b"), revision: 50, generation: 1, resumePoint: point, resumed: false)
        #expect(first?.reason == "the server no longer holds every change after revision 7")
        #expect(first === second)
    }

    @Test func aRefusedResumeInAnotherEpochSaysTheHistoryChanged() {
        var (machine, _) = synchronized()
        let point = ResumePoint(revision: 7, epoch: "e0")
        let reset = machine.observed(.key("a"), revision: 1, generation: 1, resumePoint: point, resumed: false)
        #expect(reset?.reason == "the server's history changed (epoch e0 is now e1)")
    }

    @Test func aGrantedResumeOrAFirstObserveIsNoReset() {
        var (machine, _) = synchronized()
        let point = ResumePoint(revision: 7, epoch: "e1")
        #expect(machine.observed(.key("a"), revision: 9, generation: 1, resumePoint: point, resumed: true) == nil)
        #expect(machine.observed(.key("b"), revision: 9, generation: 1, resumePoint: nil, resumed: false) == nil)
        #expect(machine.reset == nil)
    }

    @Test func aNewResyncForgetsTheLastReset() {
        var (machine, _) = synchronized()
        let point = ResumePoint(revision: 7, epoch: "e0")
        _ = machine.observed(.key("a"), revision: 1, generation: 1, resumePoint: point, resumed: false)
        _ = machine.resyncBegan()
        #expect(machine.reset == nil)
    }

    @Test func eventsMoveTheResumePointAndCarryOneAuthorPerSession() {
        var (machine, _) = synchronized(mirrors: [StandInMirror("a")])
        _ = machine.observed(.key("a"), revision: 3, generation: 1, resumePoint: nil, resumed: false)
        let first = machine.route(key: "a", version: 4, session: "s9", name: "bob", generation: 1)
        let second = machine.route(key: "a", version: 5, session: "s9", name: "bob", generation: 1)
        #expect(first.author === second.author)
        #expect(keys(first.mirrors) == ["a"])
        #expect(machine.resumePoint(for: .key("a")) == ResumePoint(revision: 5, epoch: "e1"))
    }

    @Test func aNewConnectionStartsANewAuthorTable() {
        var (machine, link) = synchronized()
        let before = machine.author(session: "s9", name: "bob")
        _ = machine.linkEnded(link, reason: .closedByServer)
        _ = machine.open(StandInLink())
        #expect(machine.author(session: "s9", name: "bob") !== before)
    }

    @Test func eventsGoToTheWatchersWhoseTargetMatches() {
        var (machine, _) = synchronized()
        let (_, continuation) = AsyncStream<RemoteChange>.makeStream()
        _ = machine.addWatcher(Watcher(target: .prefix("a."), continuation: continuation))
        _ = machine.addWatcher(Watcher(target: .key("b"), continuation: continuation))
        #expect(machine.route(key: "a.1", version: 2, session: "s", name: "n", generation: 1).watchers.count == 1)
        #expect(machine.route(key: "c", version: 3, session: "s", name: "n", generation: 1).watchers.isEmpty)
    }

    @Test func theLastWatcherOfATargetUnobservesIt() {
        var (machine, link) = synchronized(mirrors: [StandInMirror("m")])
        let (_, continuation) = AsyncStream<RemoteChange>.makeStream()
        let first = machine.addWatcher(Watcher(target: .prefix("a."), continuation: continuation))
        let second = machine.addWatcher(Watcher(target: .prefix("a."), continuation: continuation))
        let mirrored = machine.addWatcher(Watcher(target: .key("m"), continuation: continuation))
        _ = machine.observed(.prefix("a."), revision: 1, generation: 1, resumePoint: nil, resumed: false)
        let stillWatched = machine.removeWatcher(first)
        #expect(stillWatched == nil, "another watcher still needs it")
        let stillMirrored = machine.removeWatcher(mirrored)
        #expect(stillMirrored == nil, "a mirror still needs it")
        let unneeded = machine.removeWatcher(second)
        #expect(unneeded?.target == .prefix("a.") && unneeded?.link === link)
        #expect(machine.resumePoint(for: .prefix("a.")) == nil)
    }

    // MARK: Several servers

    @Test func aFailedConnectMovesToTheNextServerAndWrapsAround() {
        var machine = Machine(endpointCount: 3)
        var tried: [Int?] = []
        for _ in 0..<4 {
            tried.append(machine.connecting())
            machine.connectFailed(.connectionFailed("refused"), at: Self.start)
        }
        #expect(tried == [0, 1, 2, 0])
    }

    @Test func aLostConnectionMovesToTheNextServer() {
        var machine = Machine(endpointCount: 2)
        #expect(machine.connecting() == 0)
        let link = StandInLink()
        _ = machine.open(link)
        _ = machine.greet(link)
        _ = machine.linkEnded(link, reason: .closedByServer)
        #expect(machine.connecting() == 1)
    }

    @Test func oneServerIsAlwaysTheOneTried() {
        var machine = Machine()
        _ = machine.connecting()
        machine.connectFailed(.connectionFailed("refused"), at: Self.start)
        #expect(machine.connecting() == 0)
    }

    @Test func untilOneAnswersEachServerIsTriedOnceBeforeGivingUp() {
        var machine = Machine(endpointCount: 2)
        #expect(machine.endpoints.hasUntriedServer)
        _ = machine.connecting()
        machine.connectFailed(.connectionFailed("refused"), at: Self.start)
        #expect(machine.endpoints.hasUntriedServer, "the second is still to be tried")
        _ = machine.connecting()
        machine.connectFailed(.connectionFailed("refused"), at: Self.start)
        #expect(!machine.endpoints.hasUntriedServer)
    }

    @Test func afterAServerAnsweredALostConnectionIsNoFirstRound() {
        var machine = Machine(endpointCount: 2)
        _ = machine.connecting()
        let link = StandInLink()
        _ = machine.open(link)
        _ = machine.greet(link)
        _ = machine.linkEnded(link, reason: .closedByServer)
        #expect(!machine.endpoints.hasUntriedServer)
    }

    @Test func aClosedClientTriesNoServer() {
        var machine = Machine(endpointCount: 2)
        _ = machine.close()
        #expect(machine.connecting() == nil)
        machine.connectFailed(.connectionFailed("refused"), at: Self.start)
        #expect(machine.endpoints.current == 0)
    }
}

extension ClientMachine {
    /// Opens `link` as the client does: reserves a generation, then makes it current;
    /// returns the generation, or nil when the machine is closed.
    mutating func open(_ link: Link, at now: ContinuousClock.Instant = ClientMachineTests.start) -> Int? {
        guard let generation = reserveGeneration(), opened(link, generation: generation, at: now) == .sayHello(link)
        else { return nil }
        return generation
    }

    /// The server answers hello on `link` (session `s1`, author `me`, epoch `e1`).
    mutating func greet(_ link: Link, at now: ContinuousClock.Instant = ClientMachineTests.start) -> Author? {
        greeted(on: link, session: "s1", name: "me", epoch: "e1", at: now)
    }

    /// Asks for the next step until it is a connect, past any backoff; returns
    /// the index of the server to connect to, or nil when the machine stops.
    mutating func connecting() -> Int? {
        var now = ClientMachineTests.start
        while true {
            switch next(at: now) {
            case .connect(let index, _): return index
            case .backOff(_, let until), .wait(let until): now = until
            default: return nil
            }
        }
    }
}
