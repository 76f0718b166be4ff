import ObservatoryWire
import Testing

@testable import ObservatoryClient

/// After a `slow_consumer` close, where the client resumes, and with which slow policy it observes.
extension ClientMachineTests {
    @Test func aSlowConsumerCloseResumesEveryTargetOfItsLinkFromTheErrorsRevision() {
        var (machine, link) = synchronized()
        _ = machine.observed(.key("a"), revision: 5, generation: 1, resumePoint: nil, resumed: false)
        _ = machine.observed(.prefix("p."), revision: 3, generation: 1, resumePoint: nil, resumed: false)
        // A coalesced event of "a" came ahead of an event of "p.x" that the server dropped.
        _ = machine.route(key: "a", version: 12, session: "s", name: "n", generation: 1)
        _ = machine.route(key: "p.x", version: 9, session: "s", name: "n", generation: 1)
        _ = machine.linkEnded(link, reason: .slowConsumer(revision: 10))
        #expect(machine.resumePoint(for: .key("a")) == ResumePoint(revision: 10, epoch: "e1"))
        #expect(machine.resumePoint(for: .prefix("p.")) == ResumePoint(revision: 10, epoch: "e1"))
    }

    @Test func aTargetNotYetAnsweredOnTheClosedLinkKeepsItsOlderMark() {
        var (machine, link) = synchronized()
        _ = machine.observed(.key("a"), revision: 5, generation: 1, resumePoint: nil, resumed: false)
        _ = machine.linkEnded(link, reason: .closedByServer)
        let second = StandInLink()
        _ = machine.connecting()
        let generation = machine.reserveGeneration() ?? 0
        _ = machine.opened(second, generation: generation, at: Self.start)
        // Its observe on the second link was not answered (its reply may have been dropped).
        _ = machine.linkEnded(second, reason: .slowConsumer(revision: 40))
        #expect(machine.resumePoint(for: .key("a")) == ResumePoint(revision: 5, epoch: "e1"))
    }

    @Test func aSlowConsumerCloseWithoutARevisionKeepsTheMarks() {
        var (machine, link) = synchronized()
        _ = machine.observed(.key("a"), revision: 5, generation: 1, resumePoint: nil, resumed: false)
        _ = machine.linkEnded(link, reason: .slowConsumer(revision: nil))
        #expect(machine.resumePoint(for: .key("a")) == ResumePoint(revision: 5, epoch: "e1"))
    }

    @Test func aGrantedResumeMarksTheTargetAtItsResumePointUntilTheReplayArrives() {
        var (machine, _) = synchronized()
        let point = ResumePoint(revision: 7, epoch: "e1")
        _ = machine.observed(.key("a"), revision: 20, generation: 1, resumePoint: point, resumed: true)
        #expect(machine.resumePoint(for: .key("a")) == point)
        _ = machine.route(key: "a", version: 11, session: "s", name: "n", generation: 1)
        #expect(machine.resumePoint(for: .key("a")) == ResumePoint(revision: 11, epoch: "e1"))
    }

    @Test func aTargetIsObservedWithCloseWhenAnyOfItsWatchersAsksForIt() {
        var (machine, _) = synchronized()
        let (_, continuation) = AsyncStream<RemoteChange>.makeStream()
        _ = machine.addWatcher(Watcher(target: .prefix("a."), continuation: continuation))
        #expect(machine.slowPolicy(for: .prefix("a.")) == .coalesce)
        let strict = machine.addWatcher(Watcher(target: .prefix("a."), continuation: continuation, slow: .close))
        _ = machine.addWatcher(Watcher(target: .key("b"), continuation: continuation))
        #expect(machine.slowPolicy(for: .prefix("a.")) == .close)
        #expect(machine.slowPolicy(for: .key("b")) == .coalesce)
        _ = machine.removeWatcher(strict)
        #expect(machine.slowPolicy(for: .prefix("a.")) == .coalesce)
    }
}
