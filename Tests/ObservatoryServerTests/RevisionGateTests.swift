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

    @Test func aWaiterRunsOutsideTheGatesLockSoItMayWaitAgain() throws {
        let gate = RevisionGate(reached: 0)
        let ranAgain = Locked(false)
        // A waiter run under the gate's lock would deadlock here, taking it again.
        gate.wait(for: 1) {
            gate.wait(for: 1) { ranAgain.withLock { $0 = true } }
        }
        DispatchQueue.global().async { gate.advance(to: 1).run() }
        try waitUntil("the nested wait ran", timeout: .seconds(5)) { ranAgain.withLock { $0 } }
    }

    @Test func aGateThatLetsEverythingThroughAnswersEveryWaitAtOnce() {
        let gate = RevisionGate(reached: .max)
        let ran = Locked(false)
        gate.wait(for: 1_000_000) { ran.withLock { $0 = true } }
        #expect(ran.withLock { $0 })
    }
}
