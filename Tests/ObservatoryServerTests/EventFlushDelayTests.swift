import Testing

@testable import ObservatoryServer

@Suite struct EventFlushDelayTests {
    /// The answers of `delay` at each turn's end, given whether handlers resume and the clock then.
    private func answers(_ delay: inout EventFlushDelay, _ turns: [(resuming: Bool, now: UInt64)]) -> [Bool] {
        turns.map { turn in delay.writesNow(handlersResuming: turn.resuming, now: { turn.now }) }
    }

    @Test func outputIsWrittenAtOnceWhenNoHandlerIsLeftToResume() {
        var delay = EventFlushDelay(limit: 2_000)
        #expect(answers(&delay, [(false, 10), (false, 11)]) == [true, true])
    }

    @Test func outputWaitsWhileAHandlerResumesUntilTheLimitHasPassed() {
        var delay = EventFlushDelay(limit: 2_000)
        #expect(answers(&delay, [(true, 1_000), (true, 2_999), (true, 3_000)]) == [false, false, true])
    }

    @Test func theWaitStartsAgainAfterEveryWrite() {
        var delay = EventFlushDelay(limit: 2_000)
        let written = answers(&delay, [(true, 0), (true, 2_000), (true, 2_500), (true, 4_000), (true, 4_500)])
        #expect(written == [false, true, false, false, true])
    }

    @Test func aTurnWithNothingToResumeWritesAndEndsTheWait() {
        var delay = EventFlushDelay(limit: 2_000)
        #expect(answers(&delay, [(true, 0), (false, 100), (true, 5_000)]) == [false, true, false])
    }

    @Test func theClockIsNotReadWhenNothingIsResumed() {
        var delay = EventFlushDelay(limit: 2_000)
        var reads = 0
        let written = delay.writesNow(
            handlersResuming: false,
            now: {
                reads += 1
                return 0
            })
        #expect(written && reads == 0)
    }
}
