import ObservatoryWire
import Testing

@testable import ObservatoryClient

/// Runs of events: the events of one revision are applied together, however the bytes were split.
extension ClientMachineTests {
    private func update(_ key: String, version: Int64) -> Event {
        .update(key: key, old: nil, new: .integer(version), version: version, author: "alice", session: "s1")
    }

    /// The keys of `events`, in order (each test's events are made by ``update(_:version:)``).
    private func keys(_ events: [Event]) -> [String] {
        events.map { event in ["a", "b", "c"].first { event == update($0, version: event.version) } ?? "?" }
    }

    @Test func eventsOfOneVersionWaitUntilTheReadEndsAtAFramesEnd() {
        var (machine, link) = synchronized()
        #expect(machine.eventArrived(update("a", version: 7), on: link).isEmpty)
        #expect(machine.eventArrived(update("b", version: 7), on: link).isEmpty)
        #expect(keys(machine.readEnded(on: link, midFrame: false)) == ["a", "b"])
        #expect(machine.readEnded(on: link, midFrame: false).isEmpty, "a run is applied once")
    }

    @Test func aRunSplitInsideAFrameWaitsForTheRestOfIt() {
        var (machine, link) = synchronized()
        #expect(machine.eventArrived(update("a", version: 7), on: link).isEmpty)
        #expect(machine.readEnded(on: link, midFrame: true).isEmpty, "the next frame may belong to the run")
        #expect(machine.eventArrived(update("b", version: 7), on: link).isEmpty)
        #expect(machine.eventArrived(update("c", version: 7), on: link).isEmpty)
        #expect(keys(machine.readEnded(on: link, midFrame: false)) == ["a", "b", "c"])
    }

    @Test func anEventOfAnotherVersionEndsTheRunBeforeIt() {
        var (machine, link) = synchronized()
        _ = machine.eventArrived(update("a", version: 7), on: link)
        _ = machine.eventArrived(update("b", version: 7), on: link)
        #expect(keys(machine.eventArrived(update("c", version: 8), on: link)) == ["a", "b"])
        #expect(keys(machine.readEnded(on: link, midFrame: false)) == ["c"])
    }

    @Test func aReplyEndsTheRunSoItsEventsComeFirst() {
        var (machine, link) = synchronized()
        _ = machine.eventArrived(update("a", version: 7), on: link)
        #expect(keys(machine.runInterrupted(on: link)) == ["a"])
        #expect(machine.readEnded(on: link, midFrame: false).isEmpty)
    }

    @Test func aRunCutOffByTheLinksEndIsDroppedForTheResumeToReplay() {
        var (machine, link) = synchronized()
        _ = machine.eventArrived(update("a", version: 7), on: link)
        _ = machine.linkEnded(link, reason: .closedByServer)
        #expect(machine.run.events.isEmpty)
        #expect(machine.readEnded(on: link, midFrame: false).isEmpty, "an old link's run is gone")
    }

    @Test func eventsOfAnOldLinkAreIgnored() {
        var (machine, link) = synchronized()
        _ = machine.linkEnded(link, reason: .closedByServer)
        #expect(machine.eventArrived(update("a", version: 7), on: link).isEmpty)
        #expect(machine.run.events.isEmpty)
    }
}
