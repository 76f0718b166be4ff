import Testing

@testable import ObservatoryClient

/// The callers of `waitUntilSynchronized`, with numbers for continuations.
@Suite struct StateWaitersTests {
    private let now = ContinuousClock.now

    @Test func aStateChangeReleasesEveryWaiterAndCountsTheChange() {
        var waiters = StateWaiters<Int>()
        waiters.add(1, until: now + .seconds(5))
        waiters.add(2, until: now + .seconds(1))
        #expect(waiters.stateChanged().sorted() == [1, 2])
        #expect(waiters.changes == 1)
        #expect(waiters.stateChanged().isEmpty)
        #expect(waiters.nextDeadline == nil)
    }

    @Test func onlyWaitersWhoseDeadlinePassedExpire() {
        var waiters = StateWaiters<Int>()
        waiters.add(1, until: now + .seconds(5))
        waiters.add(2, until: now + .seconds(1))
        #expect(waiters.expire(at: now).isEmpty)
        #expect(waiters.expire(at: now + .seconds(1)) == [2])
        #expect(waiters.nextDeadline == now + .seconds(5))
        #expect(waiters.changes == 0, "expiring is no change of state")
    }

    @Test func theNextDeadlineIsTheEarliest() {
        var waiters = StateWaiters<Int>()
        waiters.add(1, until: now + .seconds(5))
        waiters.add(2, until: now + .seconds(1))
        #expect(waiters.nextDeadline == now + .seconds(1))
    }
}
