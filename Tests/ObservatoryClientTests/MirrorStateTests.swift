import Testing

@testable import ObservatoryClient

/// A mirror's convergence rules, without a network: authors are plain strings.
@Suite struct MirrorStateTests {
    typealias State = MirrorState<Int, String>

    /// A mirror with a snapshot of `value` at `version` on link 1, quiet.
    private func synchronized(value: Int = 5, version: Int64 = 3) -> State {
        var state = State(defaultValue: 0)
        _ = state.tookSnapshot(.value(value), version: version, author: "alice", resyncAuthor: "client", generation: 1)
        return state
    }

    private func shown(_ outcome: State.Outcome?) -> [String] {
        guard let show = outcome?.show else { return [] }
        return ["\(show.value) by \(show.author)"]
    }

    @Test func beforeTheFirstSnapshotNothingIsShownAndNothingCanResume() {
        let state = State(defaultValue: 7)
        #expect(!state.hasSnapshot)
        #expect(state.shown() == nil)
        #expect(state.version == 0)
    }

    @Test func aSnapshotShowsTheRemoteValueByItsAuthor() {
        var state = State(defaultValue: 0)
        let outcome = state.tookSnapshot(.value(5), version: 3, author: "alice", resyncAuthor: "client", generation: 1)
        #expect(shown(outcome) == ["5 by alice"])
        #expect(state.hasSnapshot)
        #expect(state.version == 3)
    }

    @Test func aSnapshotWithoutTheKeyShowsTheDefaultByTheResyncAuthor() {
        var state = State(defaultValue: 9)
        let outcome = state.tookSnapshot(.absent, version: 0, author: "reset", resyncAuthor: "client", generation: 1)
        #expect(shown(outcome) == ["9 by client"])
    }

    @Test func aRemoteChangeIsShownWhenNoLocalWriteIsPending() {
        var state = synchronized()
        let outcome = state.received(.value(6), version: 4, author: "bob", generation: 1)
        #expect(shown(outcome) == ["6 by bob"])
        #expect(state.version == 4)
    }

    @Test func aRemoteDeleteShowsTheDefaultByTheDeleter() {
        var state = synchronized()
        let outcome = state.received(.absent, version: 4, author: "bob", generation: 1)
        #expect(shown(outcome) == ["0 by bob"])
    }

    @Test func aStaleOrRepeatedEventIsIgnored() {
        var state = synchronized(version: 3)
        #expect(state.received(.value(1), version: 3, author: "bob", generation: 1) == nil)
        #expect(state.received(.value(1), version: 2, author: "bob", generation: 1) == nil)
        #expect(state.version == 3)
    }

    @Test func anEventOfAnEarlierLinkIsIgnored() {
        var state = synchronized()
        _ = state.tookSnapshot(.value(8), version: 10, author: "bob", resyncAuthor: "client", generation: 2)
        #expect(state.received(.value(1), version: 11, author: "bob", generation: 1) == nil)
        #expect(state.version == 10)
    }

    @Test func aRemoteChangeWhileAWriteIsInFlightIsRecordedButNotShown() {
        var state = synchronized()
        state.wroteLocally()
        #expect(state.beginSend { "r1" } == "r1")
        let outcome = state.received(.value(6), version: 4, author: "bob", generation: 1)
        #expect(shown(outcome) == [])
        #expect(state.version == 4)
    }

    @Test func theAcknowledgementRecordsTheOwnValueSoTheEchoChangesNothing() {
        var state = synchronized(version: 3)
        state.wroteLocally()
        _ = state.beginSend { "r1" }
        #expect(state.writeReplied(.acknowledged(version: 4), value: 42, author: "me") == false)
        #expect(state.shown()?.value == 42)
        #expect(state.shown()?.author == "me")
        #expect(state.received(.value(42), version: 4, author: "me", generation: 1) == nil, "no echo")
        #expect(state.requestId == nil)
    }

    @Test func aLocalWriteMadeAfterADecisionDropsThatDeliveryEvenOnceAcknowledged() throws {
        var state = synchronized()
        let delivery = try #require(state.received(.value(6), version: 4, author: "bob", generation: 1)?.show)
        state.wroteLocally()
        let shownAfterTheWrite = state.deliver(delivery)
        #expect(!shownAfterTheWrite)
        _ = state.beginSend { "r1" }
        _ = state.writeReplied(.acknowledged(version: 5), value: 7, author: "me")
        #expect(state.isQuiet)
        let shownOnceAcknowledged = state.deliver(delivery)
        #expect(!shownOnceAcknowledged, "the older delivery would undo the write")
    }

    @Test func aDeliveryWithNoLocalWriteMeanwhileStillApplies() throws {
        var state = synchronized()
        let delivery = try #require(state.received(.value(6), version: 4, author: "bob", generation: 1)?.show)
        let carriedOut = state.deliver(delivery)
        #expect(carriedOut)
    }

    @Test func aReconcileQueuedBeforeLaterEventsShowsTheVersionOfItsTimeSoDeliveriesNeverGoBack() throws {
        var state = synchronized(version: 3)
        state.wroteLocally()
        _ = state.beginSend { "r1" }
        _ = state.writeReplied(.acknowledged(version: 346), value: 46, author: "me")
        // The acknowledgement queues a reconcile; two events arrive before the queue runs it.
        let reconcile = try #require(state.shown())
        let first = try #require(state.received(.value(47), version: 347, author: "bob", generation: 1)?.show)
        let second = try #require(state.received(.value(48), version: 348, author: "bob", generation: 1)?.show)
        var deliveredVersions: [Int64] = []
        for delivery in [reconcile, first, second] where state.deliver(delivery) {
            deliveredVersions.append(delivery.version)
        }
        #expect(deliveredVersions == [346, 347, 348])
        #expect(reconcile.value == 46)
    }

    @Test func aDeliveryOlderThanOneCarriedOutIsDropped() throws {
        var state = synchronized(version: 3)
        let older = try #require(state.received(.value(6), version: 4, author: "bob", generation: 1)?.show)
        let newer = try #require(state.received(.value(7), version: 5, author: "bob", generation: 1)?.show)
        let newerShown = state.deliver(newer)
        #expect(newerShown)
        let olderShown = state.deliver(older)
        #expect(!olderShown, "the version shown would go back from 5 to 4")
        let newerShownAgain = state.deliver(newer)
        #expect(newerShownAgain, "the same version may be shown again")
    }

    @Test func aDeliveryOfANewLinkMayHaveALowerVersionButOneOfAnEarlierLinkMayNot() throws {
        var state = synchronized(version: 30)
        let stale = try #require(state.received(.value(6), version: 31, author: "bob", generation: 1)?.show)
        let resync = try #require(
            state.tookSnapshot(.value(1), version: 2, author: "bob", resyncAuthor: "client", generation: 2)?.show)
        let resyncShown = state.deliver(resync)
        #expect(resyncShown, "a server that lost its history starts lower")
        let staleShown = state.deliver(stale)
        #expect(!staleShown)
    }

    @Test func theValueSentIsTheLocalWritesUntilItIsAcknowledged() {
        var state = synchronized()
        state.wroteLocally(42)
        _ = state.beginSend { "r1" }
        _ = state.received(.value(6), version: 4, author: "bob", generation: 1)
        #expect(state.localValue == 42, "a remote change does not replace the value being written")
        _ = state.writeReplied(.acknowledged(version: 5), value: 42, author: "me")
        #expect(state.localValue == nil)
    }

    @Test func aResyncOnANewLinkTakesALowerVersion() {
        var state = synchronized(version: 30)
        let outcome = state.tookSnapshot(.value(1), version: 2, author: "bob", resyncAuthor: "client", generation: 2)
        #expect(shown(outcome) == ["1 by bob"])
        #expect(state.version == 2)
    }

    @Test func anOlderSnapshotOnTheSameLinkIsIgnored() {
        var state = synchronized(version: 30)
        #expect(state.tookSnapshot(.value(1), version: 2, author: "bob", resyncAuthor: "client", generation: 1) == nil)
        #expect(state.version == 30)
    }

    @Test func aResetAuthorsTheSnapshotItIsGiven() {
        var state = synchronized()
        let outcome = state.tookSnapshot(.value(8), version: 1, author: "reset", resyncAuthor: "reset", generation: 2)
        #expect(shown(outcome) == ["8 by reset"])
    }

    @Test func anOfflineWriteIsNotOverwrittenByTheResyncAndWinsOnceAcknowledged() {
        var state = synchronized(version: 3)
        state.wroteLocally()
        #expect(state.hasUnsentWrite)
        let resync = state.tookSnapshot(.value(99), version: 9, author: "bob", resyncAuthor: "client", generation: 2)
        #expect(shown(resync) == [], "the local value stays while it is unsent")
        _ = state.beginSend { "r1" }
        _ = state.writeReplied(.acknowledged(version: 10), value: 42, author: "me")
        #expect(state.shown()?.value == 42)
        #expect(state.version == 10)
    }

    @Test func anUndecodableValueIsReportedAndShowsNothing() {
        var state = synchronized()
        let outcome = state.received(.undecodable(detail: "a string"), version: 4, author: "bob", generation: 1)
        #expect(outcome?.undecodable?.version == 4)
        #expect(outcome?.undecodable?.detail == "a string")
        #expect(shown(outcome) == [])
        #expect(state.shown() == nil)
        let next = state.received(.value(19), version: 5, author: "bob", generation: 1)
        #expect(shown(next) == ["19 by bob"])
    }

    @Test func anUndecodableSnapshotIsReportedToo() {
        var state = State(defaultValue: 0)
        let outcome = state.tookSnapshot(
            .undecodable(detail: "no"), version: 2, author: "bob", resyncAuthor: "client", generation: 1)
        #expect(outcome?.undecodable?.version == 2)
        #expect(state.hasSnapshot)
    }

    @Test func aWriteWhoseReplyWasLostIsSentAgainWithTheSameRequestId() {
        var state = synchronized()
        state.wroteLocally()
        #expect(state.beginSend { "first" } == "first")
        #expect(state.writeReplied(.connectionLost, value: 1, author: "me") == true)
        #expect(state.hasUnsentWrite)
        #expect(state.beginSend { "second" } == "first")
    }

    @Test func aNewLocalValueTakesANewRequestId() {
        var state = synchronized()
        state.wroteLocally()
        _ = state.beginSend { "first" }
        _ = state.writeReplied(.connectionLost, value: 1, author: "me")
        state.wroteLocally()
        #expect(state.beginSend { "second" } == "second")
    }

    @Test func aWriteThatNeverLeftStaysUnsent() {
        var state = synchronized()
        state.wroteLocally()
        _ = state.beginSend { "r1" }
        state.sendDidNotHappen()
        #expect(state.hasUnsentWrite)
        #expect(state.writesInFlight == 0)
        #expect(state.beginSend { "r2" } == "r1")
    }

    @Test func nothingIsSentWithoutAnUnsentWrite() {
        var state = synchronized()
        #expect(state.beginSend { "r1" } == nil)
        #expect(state.writesInFlight == 0)
    }

    @Test func aRefusedWriteLetsTheServerValueShowAgain() {
        var state = synchronized(value: 5)
        state.wroteLocally()
        _ = state.beginSend { "r1" }
        #expect(state.shown() == nil)
        #expect(state.writeReplied(.refused, value: 1, author: "me") == false)
        #expect(state.shown()?.value == 5)
        #expect(state.requestId == nil)
    }

    @Test func aRefusedWriteKeepsTheIdOfAWriteStillInFlight() {
        var state = synchronized()
        state.wroteLocally()
        _ = state.beginSend { "r1" }
        state.wroteLocally()
        _ = state.beginSend { "r2" }
        _ = state.writeReplied(.refused, value: 1, author: "me")
        #expect(state.requestId == "r2")
        _ = state.writeReplied(.failed, value: 2, author: "me")
        #expect(state.requestId == nil)
        #expect(state.isQuiet)
    }

    @Test func anAbandonedWriteLeavesNothingInFlight() {
        var state = synchronized()
        state.wroteLocally()
        _ = state.beginSend { "r1" }
        state.sendAbandoned()
        #expect(state.isQuiet)
    }

    @Test func aSessionBoundMirrorThatWroteWritesAgainAfterItsSessionEnds() {
        var state = synchronized()
        let writesBeforeWriting = state.sessionEnded(sessionBound: true)
        #expect(!writesBeforeWriting, "nothing written yet")
        state.wroteLocally()
        _ = state.beginSend { "r1" }
        _ = state.writeReplied(.acknowledged(version: 4), value: 1, author: "me")
        let lastingWritesAgain = state.sessionEnded(sessionBound: false)
        #expect(!lastingWritesAgain, "a lasting key survives the session")
        let boundWritesAgain = state.sessionEnded(sessionBound: true)
        #expect(boundWritesAgain)
        #expect(state.hasUnsentWrite)
        #expect(state.beginSend { "r2" } == "r2")
    }

    @Test func aResumeMovesTheRecordToTheNewLinkWithoutChangingIt() {
        var state = synchronized(version: 3)
        state.resumed(generation: 2)
        #expect(state.generation == 2)
        #expect(state.version == 3)
        let outcome = state.received(.value(6), version: 4, author: "bob", generation: 2)
        #expect(shown(outcome) == ["6 by bob"])
    }
}
