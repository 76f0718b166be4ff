import Testing

@testable import ObservatoryClient

/// Which remote changes a local write replaced, or gave way to, without a network.
@Suite struct MirrorStateConflictTests {
    typealias State = MirrorState<Int, String>

    private func synchronized(serverWins: Bool = false) -> State {
        var state = State(defaultValue: 0)
        state.serverWins = serverWins
        _ = state.tookSnapshot(.value(5), version: 3, author: "alice", resyncAuthor: "client", generation: 1)
        return state
    }

    private func described(_ conflict: State.Conflict?) -> [String] {
        conflict?.replaced.map {
            "\($0.old.map(String.init) ?? "-")→\($0.new.map(String.init) ?? "-") v\($0.version) by \($0.author)"
        } ?? []
    }

    @Test func aWriteAcknowledgedAfterChangesItDidNotSeeNamesThemWithTheirAuthors() throws {
        var state = synchronized()
        state.wroteLocally(42)
        _ = state.received(.value(6), version: 4, author: "bob", generation: 1)
        _ = state.received(.absent, version: 5, author: "carol", generation: 1)
        _ = state.beginSend { "r1" }
        let early = state.takeConflict()
        #expect(early == nil, "nothing is settled before the acknowledgement")
        _ = state.writeReplied(.acknowledged(version: 6), value: 42, author: "me")
        let settled = state.takeConflict()
        let conflict = try #require(settled)
        #expect(described(conflict) == ["5→6 v4 by bob", "6→- v5 by carol"])
        #expect(conflict.written == 42)
        #expect(conflict.acknowledged == 6)
        let again = state.takeConflict()
        #expect(again == nil, "a conflict is taken once")
    }

    @Test func aWriteWithoutChangesMeanwhileHasNoConflict() {
        var state = synchronized()
        state.wroteLocally(42)
        _ = state.beginSend { "r1" }
        _ = state.writeReplied(.acknowledged(version: 4), value: 42, author: "me")
        let settled = state.takeConflict()
        #expect(settled == nil)
    }

    @Test func theEchoOfTheOwnWriteAndLaterChangesAreNotReplaced() throws {
        var state = synchronized()
        state.wroteLocally(42)
        _ = state.beginSend { "r1" }
        _ = state.received(.value(6), version: 4, author: "bob", generation: 1)
        _ = state.received(.value(42), version: 5, author: "me", generation: 1)
        _ = state.received(.value(7), version: 6, author: "carol", generation: 1)
        _ = state.writeReplied(.acknowledged(version: 5), value: 42, author: "me")
        let settled = state.takeConflict()
        #expect(described(settled) == ["5→6 v4 by bob"])
    }

    @Test func anEarlierWriteOfTheSameStretchIsNoConflictEvenIfItsEchoCameFirst() {
        var state = synchronized()
        state.wroteLocally(41)
        _ = state.beginSend { "r1" }
        state.wroteLocally(42)
        _ = state.received(.value(41), version: 4, author: "me", generation: 1)
        _ = state.writeReplied(.acknowledged(version: 4), value: 41, author: "me")
        _ = state.beginSend { "r2" }
        _ = state.writeReplied(.acknowledged(version: 5), value: 42, author: "me")
        let settled = state.takeConflict()
        #expect(settled == nil)
    }

    @Test func changesSeenBeforeTheWriteAreNoConflict() {
        var state = synchronized()
        _ = state.received(.value(6), version: 4, author: "bob", generation: 1)
        state.wroteLocally(42)
        _ = state.beginSend { "r1" }
        _ = state.writeReplied(.acknowledged(version: 5), value: 42, author: "me")
        let settled = state.takeConflict()
        #expect(settled == nil)
    }

    @Test func aRefusedWriteSettlesNoConflict() {
        var state = synchronized()
        state.wroteLocally(42)
        _ = state.received(.value(6), version: 4, author: "bob", generation: 1)
        _ = state.beginSend { "r1" }
        _ = state.writeReplied(.refused, value: 42, author: "me")
        let settled = state.takeConflict()
        #expect(settled == nil)
        #expect(state.replaced.isEmpty)
    }

    @Test func withServerWinsAnUnseenChangeDropsTheUnsentWriteAndShows() throws {
        var state = synchronized(serverWins: true)
        state.wroteLocally(42, requestId: "r1")
        let outcome = state.received(.value(6), version: 4, author: "bob", generation: 1)
        #expect(outcome?.show?.value == 6)
        #expect(outcome?.show?.author == "bob")
        #expect(!state.hasUnsentWrite)
        let sent = state.beginSend { "r2" }
        #expect(sent == nil, "the write is not sent")
        let settled = state.takeConflict()
        let conflict = try #require(settled)
        #expect(described(conflict) == ["5→6 v4 by bob"])
        #expect(conflict.written == 42)
        #expect(conflict.acknowledged == nil)
    }

    @Test func withServerWinsAWriteInFlightIsLeftToTheServerWhichRefusesItsVersion() throws {
        var state = synchronized(serverWins: true)
        state.wroteLocally(42)
        #expect(state.writeCondition == 3, "sent with ifVersion: the version it was made on")
        _ = state.beginSend { "r1" }
        let outcome = state.received(.value(6), version: 4, author: "bob", generation: 1)
        #expect(outcome?.show == nil, "the write is in flight: the server decides")
        _ = state.writeReplied(.conflicted, value: 42, author: "me")
        let settled = state.takeConflict()
        let conflict = try #require(settled)
        #expect(described(conflict) == ["5→6 v4 by bob"])
        #expect(conflict.acknowledged == nil)
        #expect(state.shown()?.value == 6)
        #expect(state.shown()?.author == "bob")
    }

    @Test func withServerWinsTheNextWriteExpectsTheVersionOfTheLastAcknowledgedOne() {
        var state = synchronized(serverWins: true)
        state.wroteLocally(42)
        _ = state.beginSend { "r1" }
        state.wroteLocally(43)
        _ = state.writeReplied(.acknowledged(version: 4), value: 42, author: "me")
        #expect(state.writeCondition == 4)
        #expect(synchronized().writeCondition == nil, "the last writer wins without the policy")
    }
}
