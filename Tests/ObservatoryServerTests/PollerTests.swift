import Glibc
import ObservatoryEpoll
import Testing

@Suite struct PollerTests {
    private func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The timer ends a long wait at its deadline, reports as a wake-up, and fires once.
    @Test func theTimerEndsAWaitAtItsDeadlineAsAWakeUp() throws {
        let poller = try Poller()
        let start = monotonicNanoseconds()
        poller.wake(atMonotonicNanoseconds: start + 20_000_000)
        var tokens: [Int] = []
        try poller.wait(timeoutMilliseconds: 10_000) { tokens.append($0.token) }
        let elapsed = monotonicNanoseconds() - start
        #expect(tokens == [Poller.wakeToken])
        #expect(elapsed >= 20_000_000 && elapsed < 5_000_000_000, "\(elapsed) ns")
        tokens.removeAll()
        try poller.wait(timeoutMilliseconds: 50) { tokens.append($0.token) }
        #expect(tokens.isEmpty, "the expiry was consumed")
    }

    @Test func aLaterDeadlineReplacesTheEarlierOne() throws {
        let poller = try Poller()
        let start = monotonicNanoseconds()
        poller.wake(atMonotonicNanoseconds: start + 10_000_000)
        poller.wake(atMonotonicNanoseconds: start + 10_000_000_000)
        var tokens: [Int] = []
        try poller.wait(timeoutMilliseconds: 100) { tokens.append($0.token) }
        #expect(tokens.isEmpty)
    }
}
