import Dispatch
import Observatory
import ObservatoryTestSupport
import Testing

@testable import ObservatoryServer

/// The shell of the revision gate: its inputs hand the waiters back to the
/// caller, and no waiter runs while the gate's lock is held.
@Suite struct RevisionGateTests {
    @Test func advancingReturnsTheWaitersForTheCallerToRun() {
        let gate = RevisionGate(reached: 0)
        let ran = Locked(false)
        gate.wait(for: 1) { ran.withLock { $0 = true } }
        let wakeup = gate.advance(to: 1)
        #expect(gate.reached == 1)
        #expect(!ran.withLock { $0 })
        wakeup.run()
        #expect(ran.withLock { $0 })
    }

    @Test func aWaiterRunsOutsideTheGatesLockSoAnotherThreadMayAskTheGate() throws {
        let gate = RevisionGate(reached: 0)
        let answered = Locked<Bool?>(nil)
        // Whether another thread gets the gate's lock while a waiter runs: it
        // would not, for as long as the waiter runs, if waiters ran under it.
        let askAnotherThread: @Sendable () -> Void = {
            let asked = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                _ = gate.loss(of: 1)
                asked.signal()
            }
            let isAnswered = asked.wait(timeout: .now() + .seconds(2)) == .success
            answered.withLock { $0 = isAnswered }
        }
        // Once when the revision arrives, and once when it already has.
        gate.wait(for: 1) { gate.wait(for: 1, askAnotherThread) }
        DispatchQueue.global().async { gate.advance(to: 1).run() }
        try waitUntil("the waiter ran", timeout: .seconds(10)) { answered.withLock { $0 != nil } }
        #expect(answered.withLock { $0 } == true)
    }

    @Test func aGateThatLetsEverythingThroughAnswersEveryWaitAtOnce() {
        let gate = RevisionGate(reached: .max)
        let ran = Locked(false)
        gate.wait(for: 1_000_000) { ran.withLock { $0 = true } }
        #expect(ran.withLock { $0 })
    }

    @Test func aWaitWithADeadlineRunsOnceToldItTimedOutWhenTheGateExpiresIt() {
        let gate = RevisionGate(reached: 0)
        let endings = Locked<[RevisionGate.Ending]>([])
        let now = ContinuousClock.now
        let waits = gate.wait(for: 1, until: now + .seconds(1)) { ending in endings.withLock { $0.append(ending) } }
        #expect(waits)
        let early = gate.expire(at: now)
        early.wakeup.run()
        #expect(early.nextDeadline == now + .seconds(1))
        let due = gate.expire(at: now + .seconds(1))
        #expect(due.nextDeadline == nil)
        due.wakeup.run()
        gate.advance(to: 1).run()
        #expect(endings.withLock { $0 } == [.timedOut])
    }

    @Test func aWaitWithADeadlineForARevisionPassedRunsAtOnceAndDoesNotWait() {
        let gate = RevisionGate(reached: 3)
        let endings = Locked<[RevisionGate.Ending]>([])
        let waits = gate.wait(for: 2, until: .now + .seconds(1)) { ending in endings.withLock { $0.append(ending) } }
        #expect(!waits)
        #expect(endings.withLock { $0 } == [.reached])
    }
}
