import ObservatoryEpoll
import Testing

@testable import ObservatoryServer

/// The rules of reading, sending and closing, as plain values: no socket, no clock.
@Suite struct ConnectionMachineTests {
    private static let millisecond: UInt64 = 1_000_000
    private static let timing = ConnectionMachine.Timing(
        authentication: nil, idle: nil, closingPatience: 30_000 * millisecond, shutdownGrace: 2_000 * millisecond,
        linger: 2_000 * millisecond)

    private static func outcome(
        drained: Bool = true, full: Bool = false, slow: Bool = false, sent: Int = 0
    ) -> ConnectionMachine.SendOutcome {
        ConnectionMachine.SendOutcome(isDrained: drained, isSocketFull: full, isSlowConsumer: slow, sentByteCount: sent)
    }

    @Test func answeredRequestsAreSentAndReadingGoesOn() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        #expect(machine.interest == .readable)
        let actions = machine.answered(.keepOpen, at: 10)
        #expect(actions == .send())
        #expect(machine.wantsToRead)
        #expect(machine.nextDeadline == nil, "no timer without auth or idle timeouts")
    }

    @Test func aBackloggedConnectionIsNotReadUntilItsOutputDrains() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        let backlogged = machine.answered(.backlogged, at: 1)
        #expect(backlogged == .send(reason: "not read until its queued bytes drain"))
        #expect(!machine.wantsToRead)
        #expect(machine.interest == [])

        // The socket fills: the shell watches for room, still not for input.
        #expect(machine.sent(Self.outcome(drained: false, full: true), at: 2) == .none)
        #expect(machine.interest == .writable)

        // Drained: the session answers the frames it kept, and only then is the socket read again.
        let drained = machine.sent(Self.outcome(), at: 3)
        #expect(drained == .answerBuffered)
        #expect(!machine.wantsToRead)
        #expect(machine.answered(.keepOpen, at: 4) == .send())
        #expect(machine.interest == .readable)
    }

    @Test func aFatalErrorSendsWhatIsQueuedThenLingersThenCloses() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        let closing = machine.answered(.close, at: 5)
        #expect(closing == .send(reason: "closing after a fatal protocol error"))
        #expect(!machine.wantsToRead)

        let finished = machine.sent(Self.outcome(), at: 6)
        #expect(finished == .finish(), "the session ends; the sending side is shut")
        #expect(machine.phase == .lingering(deadline: 6 + Self.timing.linger))
        #expect(machine.interest == .readable, "input is dropped until the client hangs up")

        #expect(machine.discardedInput(peerClosed: false) == .none)
        #expect(machine.discardedInput(peerClosed: true) == .close)
        #expect(machine.phase == .closed)
    }

    @Test func aLingeringSocketClosesAtItsDeadlineEvenIfTheClientStaysSilent() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        _ = machine.endOfInput(at: 0)
        _ = machine.sent(Self.outcome(), at: 1)
        #expect(machine.timerFired(at: Self.timing.linger, needsHello: false, outcome: Self.outcome()) == .none)
        #expect(machine.timerFired(at: 1 + Self.timing.linger, needsHello: false, outcome: Self.outcome()) == .close)
    }

    @Test func aClientThatClosesItsSendingSideStillGetsItsReplies() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        let actions = machine.endOfInput(at: 1)
        #expect(actions == .send())
        #expect(machine.isSending)
        // Replies still queued: nothing ends until they are out.
        #expect(machine.sent(Self.outcome(drained: false, full: true, sent: 100), at: 2) == .none)
        #expect(machine.sent(Self.outcome(sent: 200), at: 3) == .finish())
    }

    @Test func aClosingConnectionWaitsAsLongAsItsClientKeepsReading() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        _ = machine.answered(.close, at: 0)
        let patience = Self.timing.closingPatience
        // The client took bytes since the last look: the deadline moves on.
        let moved = machine.timerFired(at: patience, needsHello: false, outcome: Self.outcome(drained: false, sent: 10))
        #expect(moved == .none)
        #expect(machine.nextDeadline == 2 * patience)
        // It took nothing more: the session ends.
        let ended = machine.timerFired(
            at: 2 * patience, needsHello: false, outcome: Self.outcome(drained: false, sent: 10))
        #expect(ended == .finish())
    }

    @Test func aSlowConsumerIsClosedOnceItsErrorIsOut() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        let closing = machine.sent(Self.outcome(drained: false, full: true, slow: true), at: 1)
        #expect(closing.reason == "closed as a slow consumer")
        #expect(!machine.wantsToRead)
        #expect(machine.interest == .writable)
        #expect(machine.sent(Self.outcome(slow: true), at: 2) == .finish())
    }

    @Test func aConnectionWithoutHelloIsRejectedAtTheAuthenticationDeadline() {
        var timing = Self.timing
        timing.authentication = 10 * Self.millisecond
        var machine = ConnectionMachine(timing: timing, now: 0)
        #expect(machine.nextDeadline == 10 * Self.millisecond)
        #expect(machine.timerFired(at: 5, needsHello: true, outcome: Self.outcome()) == .none)
        let rejected = machine.timerFired(at: 10 * Self.millisecond, needsHello: true, outcome: Self.outcome())
        #expect(rejected == .rejectUnauthenticated(reason: "no successful hello in time"))
        #expect(!machine.wantsToRead)
    }

    @Test func anAuthenticatedConnectionOutlivesTheAuthenticationDeadline() {
        var timing = Self.timing
        timing.authentication = 10 * Self.millisecond
        var machine = ConnectionMachine(timing: timing, now: 0)
        #expect(machine.timerFired(at: 10 * Self.millisecond, needsHello: false, outcome: Self.outcome()) == .none)
        #expect(machine.phase == .open)
        #expect(machine.nextDeadline == nil)
    }

    @Test func theIdleTimeoutCountsFromTheLastRequest() {
        var timing = Self.timing
        timing.idle = 100
        var machine = ConnectionMachine(timing: timing, now: 0)
        _ = machine.answered(.keepOpen, at: 60)
        #expect(machine.nextDeadline == 160)
        #expect(machine.timerFired(at: 100, needsHello: false, outcome: Self.outcome()) == .none)
        let idle = machine.timerFired(at: 160, needsHello: false, outcome: Self.outcome())
        #expect(idle == .send(reason: "closed after 0 ms without a request"))
        #expect(!machine.wantsToRead)
    }

    @Test func shutdownKeepsAnsweringForHalfTheGraceThenCloses() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        #expect(machine.shutDown(at: 0) == .send())
        #expect(machine.wantsToRead, "requests are still answered, with shutting_down")
        let half = Self.timing.shutdownGrace / 2
        #expect(machine.nextDeadline == half)
        #expect(machine.timerFired(at: half, needsHello: false, outcome: Self.outcome(drained: false)) == .send())
        // Closing during shutdown waits the grace time, not the usual patience.
        #expect(machine.nextDeadline == half + Self.timing.shutdownGrace)
    }

    @Test func theInputBudgetPausesReadingButWatchesForAHangUp() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        machine.inputBudget(pauses: true)
        #expect(machine.interest == .hangUp)
        let gone = machine.hungUp()
        #expect(
            gone == .finishAndClose(reason: "the client left while it was not read"),
            "a client gone while not read costs nothing more")
        machine.inputBudget(pauses: false)
        #expect(machine.interest == [])
    }

    @Test func aFailedSocketEndsTheSessionAndClosesAtOnce() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        let failed = machine.failed("recv failed")
        #expect(failed == .finishAndClose(reason: "recv failed"))
        #expect(machine.failed("again") == .none, "closing happens once")
        #expect(machine.abandon() == .none)
    }

    @Test func abandoningALingeringSocketOnlyClosesIt() {
        var machine = ConnectionMachine(timing: Self.timing, now: 0)
        _ = machine.endOfInput(at: 0)
        _ = machine.sent(Self.outcome(), at: 0)
        #expect(machine.abandon() == .close)
    }
}
