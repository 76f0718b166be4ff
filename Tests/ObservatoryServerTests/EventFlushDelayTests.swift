import Testing

@testable import ObservatoryServer

@Suite struct EventFlushDelayTests {
    /// The answers of `delay` at each turn's end, given whether handlers resume,
    /// the shares the turn resumed and the loop's CPU time then.
    private func answers(
        _ delay: inout EventFlushDelay, _ turns: [(resuming: Bool, shares: Int, cpuTime: UInt64)]
    ) -> [Bool] {
        turns.map { turn in
            delay.writesNow(handlersResuming: turn.resuming, sharesResumed: turn.shares, cpuTime: { turn.cpuTime })
        }
    }

    @Test func outputIsWrittenAtOnceWhenNoHandlerIsLeftToResume() {
        var delay = EventFlushDelay(shares: 64, limit: 2_000)
        #expect(answers(&delay, [(false, 1, 10), (false, 4, 11)]) == [true, true])
    }

    @Test func outputWaitsWhileAHandlerResumesUntilTheLoopsCPUTimeLimitHasPassed() {
        var delay = EventFlushDelay(shares: 64, limit: 2_000)
        #expect(answers(&delay, [(true, 1, 1_000), (true, 1, 2_999), (true, 1, 3_000)]) == [false, false, true])
    }

    @Test func outputWaitsBehindAtMostTheShareLimit() {
        var delay = EventFlushDelay(shares: 8, limit: .max)
        let written = answers(&delay, [(true, 3, 0), (true, 4, 0), (true, 1, 0)])
        #expect(written == [false, false, true], "the eighth share ends the wait, however little time passed")
    }

    @Test func aWindowOfSixtyFourChangesOfAShareEachIsWrittenInOneGo() {
        // A writer's window of 64 changes to 1,000 observers, each change a share:
        // the first answered when read, the other 63 resumed four a turn.
        var delay = EventFlushDelay(shares: 64, limit: .max)
        var turns = Array(repeating: (resuming: true, shares: 4, cpuTime: UInt64(0)), count: 15)
        turns.append((resuming: true, shares: 3, cpuTime: 0))
        #expect(answers(&delay, turns).allSatisfy { !$0 }, "63 resumed shares do not end the wait")
        #expect(answers(&delay, [(false, 0, 0)]) == [true])
    }

    @Test func theShareCountStartsAgainAfterEveryWrite() {
        var delay = EventFlushDelay(shares: 4, limit: .max)
        let written = answers(&delay, [(true, 4, 0), (true, 3, 0), (true, 1, 0), (false, 2, 0), (true, 3, 0)])
        #expect(written == [true, false, true, true, false])
    }

    @Test func theWaitStartsAgainAfterEveryWrite() {
        var delay = EventFlushDelay(shares: 64, limit: 2_000)
        let written = answers(
            &delay, [(true, 1, 0), (true, 1, 2_000), (true, 1, 2_500), (true, 1, 4_000), (true, 1, 4_500)])
        #expect(written == [false, true, false, false, true])
    }

    @Test func aTurnWithNothingToResumeWritesAndEndsTheWait() {
        var delay = EventFlushDelay(shares: 64, limit: 2_000)
        #expect(answers(&delay, [(true, 1, 0), (false, 0, 100), (true, 1, 5_000)]) == [false, true, false])
    }

    @Test func theClockIsNotReadWhenNothingIsResumedOrTheSharesAreUsedUp() {
        var delay = EventFlushDelay(shares: 2, limit: 2_000)
        var reads = 0
        let clock = {
            reads += 1
            return UInt64(0)
        }
        let idle = delay.writesNow(handlersResuming: false, sharesResumed: 0, cpuTime: clock)
        let full = delay.writesNow(handlersResuming: true, sharesResumed: 2, cpuTime: clock)
        #expect(idle && full && reads == 0)
    }
}
