import ObservatorySockets
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Fair turns: a connection answers one share of its frames per loop turn, and
/// the loop resumes it in the next turn, so a pipelining client cannot hold the
/// loop for its whole batch while another client's single request waits.
@Suite struct FairTurnTests {
    private static let timing = ConnectionMachine.Timing(
        authentication: nil, idle: nil, closingPatience: 30_000_000_000, shutdownGrace: 2_000_000_000,
        linger: 2_000_000_000)

    private static let drained = ConnectionMachine.SendOutcome(
        isDrained: true, isSocketFull: false, isSlowConsumer: false, sentByteCount: 0)

    @Test func aConnectionThatUsedItsShareIsNotReadAndIsResumedNextTurn() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        #expect(machine.answered(.keepOpen, usedShare: true, at: 1) == .sendAndResume)
        #expect(!machine.wantsToRead, "its unanswered frames are answered before more input is read")
        #expect(machine.interest == [])

        #expect(machine.resumed() == .answerBuffered)
        #expect(machine.answered(.keepOpen, at: 2) == .send())
        #expect(machine.wantsToRead, "every frame held is answered: reading goes on")
        #expect(machine.interest == .readable)
    }

    @Test func aConnectionWithMoreThanTwoSharesYieldsEveryTurn() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        #expect(machine.answered(.keepOpen, usedShare: true, at: 1) == .sendAndResume)
        #expect(machine.resumed() == .answerBuffered)
        #expect(machine.answered(.keepOpen, usedShare: true, at: 2) == .sendAndResume)
        #expect(machine.resumed() == .answerBuffered)
        #expect(machine.answered(.keepOpen, at: 3) == .send())
        #expect(machine.resumed() == .none, "a connection that did not yield has nothing to resume")
    }

    @Test func aDrainedOutputDoesNotAnswerAYieldingConnectionBeforeItsTurn() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        _ = machine.answered(.keepOpen, usedShare: true, at: 1)
        #expect(machine.sent(Self.drained, at: 2) == .none)
        #expect(machine.resumed() == .answerBuffered)
    }

    @Test func aBackloggedAnswerWaitsForTheDrainNotForTheNextTurn() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        _ = machine.answered(.keepOpen, usedShare: true, at: 1)
        _ = machine.resumed()
        _ = machine.answered(.backlogged, at: 2)
        #expect(machine.resumed() == .none)
        #expect(machine.sent(Self.drained, at: 3) == .answerBuffered)
    }

    @Test func aConnectionClosedWhileYieldingIsNotResumed() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        _ = machine.answered(.keepOpen, usedShare: true, at: 1)
        #expect(machine.failed("recv failed") == .finishAndClose(reason: "recv failed"))
        #expect(machine.resumed() == .none)

        var closing = ConnectionMachine(timing: Self.timing, now: 0)
        _ = closing.answered(.keepOpen, usedShare: true, at: 1)
        _ = closing.shutDown(at: 2)
        _ = closing.timerFired(at: Self.timing.shutdownGrace, needsHello: false, outcome: Self.drained)
        #expect(closing.resumed() == .none, "a closing connection answers nothing more")
    }

    /// Answers one share of what the harness's session holds, described for comparison.
    private func answer(_ harness: SessionHarness, within share: ConnectionMachine.TurnShare) -> String {
        let (action, usedShare) = harness.session.output.answerFrames(of: harness.session, within: share)
        return "\(action), " + (usedShare ? "share used" : "all answered")
    }

    @Test func answersStopAtTheShareOfRequests() throws {
        let harness = SessionHarness(fixture: try SessionFixture(configuration: testConfiguration()))
        let output = harness.session.output
        harness.session.receive(Array((0..<5).map { #"{"op":"ping","id":\#($0)}"# + "\n" }.joined().utf8))
        let share = ConnectionMachine.TurnShare(requests: 2, nanoseconds: .max)

        #expect(answer(harness, within: share) == "keepOpen, share used")
        #expect(try output.drainMessages().map { $0["id"] } == [0, 1])
        #expect(answer(harness, within: share) == "keepOpen, share used")
        #expect(try output.drainMessages().map { $0["id"] } == [2, 3])
        #expect(answer(harness, within: share) == "keepOpen, all answered")
        #expect(try output.drainMessages().map { $0["id"] } == [4])
    }

    @Test func aShareThatAnswersTheLastFrameHeldIsNotUsedUp() throws {
        let harness = SessionHarness(fixture: try SessionFixture(configuration: testConfiguration()))
        let output = harness.session.output
        harness.session.receive(Array((0..<2).map { #"{"op":"ping","id":\#($0)}"# + "\n" }.joined().utf8))

        let requests = ConnectionMachine.TurnShare(requests: 2, nanoseconds: .max)
        #expect(answer(harness, within: requests) == "keepOpen, all answered", "no frame is left for a next share")
        #expect(try output.drainMessages().map { $0["id"] } == [0, 1])

        harness.session.receive(Array(#"{"op":"ping","id":2}"#.utf8 + [10]))
        let time = ConnectionMachine.TurnShare(requests: .max, nanoseconds: 0)
        #expect(answer(harness, within: time) == "keepOpen, all answered")
        #expect(try output.drainMessages().map { $0["id"] } == [2])
    }

    @Test func answersStopOnceTheyTookTheShareOfTime() throws {
        let harness = SessionHarness(fixture: try SessionFixture(configuration: testConfiguration()))
        let output = harness.session.output
        harness.session.receive(Array((0..<4).map { #"{"op":"ping","id":\#($0)}"# + "\n" }.joined().utf8))
        let share = ConnectionMachine.TurnShare(requests: .max, nanoseconds: 0)

        #expect(answer(harness, within: share) == "keepOpen, share used")
        #expect(try output.drainMessages().map { $0["id"] } == [0], "one answer at least, then the share is used")
    }
}
