import ObservatoryLocking
import Testing

/// The rules of the project's one gate (`GateMachine`), with names for waiters
/// and words for losses: who wakes on which input, told what, in which order,
/// and that each waiter wakes exactly once.
@Suite struct GateMachineTests {
    private typealias Gate = GateMachine<String, String>
    private let now = ContinuousClock.now

    // MARK: Waiting and advancing

    @Test func aWaitForAValueAlreadyReachedIsAnsweredAtOnceAsReached() {
        var gate = Gate(reached: 5)
        let woken = gate.wait(for: 5, "five")
        #expect(woken.map(\.waiter) == ["five"])
        #expect(woken.map(\.ending) == [.reached])
        #expect(gate.waiterCount == 0)
    }

    @Test func aWaitForAValueAheadWakesOnceTheCounterReachesIt() {
        var gate = Gate(reached: 5)
        #expect(gate.wait(for: 7, "seven").isEmpty)
        #expect(gate.advance(to: 6).isEmpty)
        let woken = gate.advance(to: 7)
        #expect(woken.map(\.waiter) == ["seven"])
        #expect(woken.map(\.ending) == [.reached])
        #expect(gate.reached == 7)
        #expect(gate.waiterCount == 0)
    }

    @Test func waitersWakeInValueOrderAndInArrivalOrderForOneValue() {
        var gate = Gate(reached: 0)
        for (value, name) in [(3, "3a"), (1, "1"), (3, "3b"), (2, "2"), (9, "9")] {
            _ = gate.wait(for: Int64(value), until: now + .seconds(value), name)
        }
        #expect(gate.advance(to: 4).map(\.waiter) == ["1", "2", "3a", "3b"])
        #expect(gate.waiterCount == 1)
    }

    @Test func advancingBehindTheCounterWakesNothingAndKeepsIt() {
        var gate = Gate(reached: 5)
        _ = gate.wait(for: 6, "six")
        #expect(gate.advance(to: 3).isEmpty)
        #expect(gate.reached == 5)
        #expect(gate.waiterCount == 1)
    }

    // MARK: Deadlines

    @Test func expiringWakesOnlyTheWaitersWhoseDeadlinePassedAsTimedOut() {
        var gate = Gate(reached: 0)
        _ = gate.wait(for: 1, until: now + .seconds(5), "late")
        _ = gate.wait(for: 2, until: now + .seconds(1), "soon")
        _ = gate.wait(for: 3, "patient")
        #expect(gate.expire(at: now).isEmpty)
        let expired = gate.expire(at: now + .seconds(1))
        #expect(expired.map(\.waiter) == ["soon"])
        #expect(expired.map(\.ending) == [.timedOut])
        #expect(gate.waiterCount == 2)
        #expect(gate.expire(at: now + .seconds(3_600)).map(\.waiter) == ["late"], "no deadline: never expires")
    }

    @Test func waitersExpiringTogetherWakeInValueOrderThenArrival() {
        var gate = Gate(reached: 0)
        for (value, name) in [(3, "3a"), (1, "1"), (3, "3b"), (2, "2")] {
            _ = gate.wait(for: Int64(value), until: now + .seconds(4 - value), name)
        }
        #expect(gate.expire(at: now + .seconds(5)).map(\.waiter) == ["1", "2", "3a", "3b"])
    }

    @Test func theNextDeadlineIsTheEarliestOfTheWaitersStillWaiting() {
        var gate = Gate(reached: 0)
        #expect(gate.nextDeadline == nil)
        _ = gate.wait(for: 1, "no deadline")
        #expect(gate.nextDeadline == nil)
        _ = gate.wait(for: 2, until: now + .seconds(5), "late")
        _ = gate.wait(for: 3, until: now + .seconds(1), "soon")
        #expect(gate.nextDeadline == now + .seconds(1))
        _ = gate.expire(at: now + .seconds(1))
        #expect(gate.nextDeadline == now + .seconds(5))
        _ = gate.advance(to: 2)
        #expect(gate.nextDeadline == nil, "the waiter with the deadline was woken")
    }

    // MARK: Exactly once

    @Test func aWaiterThatTimedOutIsNotWokenAgainByAdvancingOrClosing() {
        var gate = Gate(reached: 0)
        _ = gate.wait(for: 1, until: now, "timed out")
        #expect(gate.expire(at: now).count == 1)
        #expect(gate.advance(to: 1).isEmpty)
        #expect(gate.close().isEmpty)
        #expect(gate.expire(at: now + .seconds(1)).isEmpty)
    }

    @Test func aWaiterThatWasReachedDoesNotTimeOutLater() {
        var gate = Gate(reached: 0)
        _ = gate.wait(for: 1, until: now + .seconds(1), "reached")
        #expect(gate.advance(to: 1).count == 1)
        #expect(gate.expire(at: now + .seconds(2)).isEmpty)
        #expect(gate.close().isEmpty)
        #expect(gate.nextDeadline == nil)
    }

    // MARK: Losses

    @Test func losingValuesWakesOnlyTheirWaitersToldTheLoss() {
        var gate = Gate(reached: 1)
        for value in Int64(2)...5 { _ = gate.wait(for: value, "\(value)") }
        let woken = gate.lose(3...4, because: "disk full")
        #expect(woken.map(\.waiter) == ["3", "4"])
        #expect(woken.map(\.ending) == [.lost("disk full"), .lost("disk full")])
        #expect(gate.waiterCount == 2)
        #expect(gate.loss(of: 3) == "disk full")
        #expect(gate.loss(of: 5) == nil)
    }

    @Test func aWaitForALostValueIsToldTheLossAtOnceEvenAfterTheCounterPassedIt() {
        var gate = Gate(reached: 1)
        _ = gate.lose(2...3, because: "disk full")
        _ = gate.advance(to: 5)
        #expect(gate.wait(for: 3, "three").map(\.ending) == [.lost("disk full")])
        #expect(gate.wait(for: 4, "four").map(\.ending) == [.reached])
    }

    // MARK: Closing

    @Test func closingWakesEveryWaiterAsClosedAndAnswersLaterWaitsAtOnce() {
        var gate = Gate(reached: 2)
        _ = gate.wait(for: 4, until: now + .seconds(1), "4")
        _ = gate.wait(for: 3, "3")
        let woken = gate.close()
        #expect(woken.map(\.waiter) == ["3", "4"])
        #expect(woken.map(\.ending) == [.closed, .closed])
        #expect(gate.nextDeadline == nil)
        #expect(gate.wait(for: 10, "10").map(\.ending) == [.closed])
        #expect(gate.wait(for: 2, "2").map(\.ending) == [.reached])
        #expect(gate.waiterCount == 0)
    }
}
