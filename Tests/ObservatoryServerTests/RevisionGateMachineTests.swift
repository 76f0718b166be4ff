import Observatory
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// The revision gate's rules (`RevisionGateMachine`, the generic `GateMachine`
/// with `WireError` losses), without threads: who wakes when, in which order,
/// and what lost revisions and closing do; and the gate fed by the durability
/// machine under each fsync policy.
@Suite struct RevisionGateMachineTests {
    private let lostError = WireError(code: .internalError, message: "storage: lost")

    // MARK: Waiting and advancing

    @Test func aWaitForARevisionAlreadyPassedIsAnsweredAtOnce() {
        var gate = RevisionGateMachine(reached: 5)
        let log = Log()
        let woken = gate.wait(for: 5, log.action("five"))
        #expect(woken.map(\.target) == [5])
        #expect(gate.waiterCount == 0)
    }

    @Test func aWaitForARevisionAheadWaitsUntilTheGateReachesIt() {
        var gate = RevisionGateMachine(reached: 5)
        let log = Log()
        #expect(gate.wait(for: 7, log.action("seven")).isEmpty)
        #expect(gate.advance(to: 6).isEmpty)
        let woken = gate.advance(to: 7)
        #expect(woken.map(\.target) == [7])
        #expect(gate.reached == 7)
        #expect(gate.waiterCount == 0)
    }

    @Test func waitersWakeInRevisionOrderAndInArrivalOrderForOneRevision() {
        var gate = RevisionGateMachine(reached: 0)
        let log = Log()
        _ = gate.wait(for: 3, log.action("3a"))
        _ = gate.wait(for: 1, log.action("1"))
        _ = gate.wait(for: 3, log.action("3b"))
        _ = gate.wait(for: 2, log.action("2"))
        _ = gate.wait(for: 9, log.action("9"))
        for woken in gate.advance(to: 4) { woken.waiter(woken.ending) }
        #expect(log.entries == ["1", "2", "3a", "3b"])
        #expect(gate.waiterCount == 1)
    }

    @Test func advancingBehindTheGateWakesNothingAndKeepsItsRevision() {
        var gate = RevisionGateMachine(reached: 5)
        let log = Log()
        _ = gate.wait(for: 6, log.action("six"))
        #expect(gate.advance(to: 3).isEmpty)
        #expect(gate.reached == 5)
        #expect(gate.waiterCount == 1)
    }

    // MARK: Lost revisions

    @Test func losingRevisionsWakesOnlyTheirWaitersAndRecordsTheirError() {
        var gate = RevisionGateMachine(reached: 1)
        let log = Log()
        for revision in Int64(2)...5 { _ = gate.wait(for: revision, log.action("\(revision)")) }
        let woken = gate.lose(3...4, because: lostError)
        #expect(woken.map(\.target) == [3, 4])
        #expect(woken.map(\.ending) == [.lost(lostError), .lost(lostError)])
        #expect(gate.waiterCount == 2)
        #expect(gate.loss(of: 3) == lostError)
        #expect(gate.loss(of: 4) == lostError)
        #expect(gate.loss(of: 2) == nil)
        #expect(gate.loss(of: 5) == nil)
        #expect(gate.reached == 1)
    }

    @Test func aWaitForALostRevisionIsAnsweredAtOnce() {
        var gate = RevisionGateMachine(reached: 1)
        _ = gate.lose(2...3, because: lostError)
        let woken = gate.wait(for: 3, Log().action("three"))
        #expect(woken.map(\.target) == [3])
        #expect(gate.waiterCount == 0)
    }

    // MARK: Closing

    @Test func closingWakesEveryWaiterAndAnswersLaterWaitsAtOnce() {
        var gate = RevisionGateMachine(reached: 0)
        let log = Log()
        _ = gate.wait(for: 2, log.action("2"))
        _ = gate.wait(for: 1, log.action("1"))
        #expect(gate.close().map(\.target) == [1, 2])
        #expect(gate.wait(for: 10, log.action("10")).map(\.target) == [10])
        #expect(gate.waiterCount == 0)
    }

    // MARK: Acknowledgement under each fsync policy

    @Test func underEverysecAWaiterWakesOnceWriteTookItsChange() {
        var durability = DurabilityMachine(policy: .everysec, revision: 0)
        var gate = RevisionGateMachine(reached: 0)
        _ = gate.wait(for: 1, Log().action("1"))
        let woken = feed(durability.appended(through: 1, at: 0), to: &gate)
        #expect(woken == [1])
    }

    @Test func underAlwaysAWaiterWakesOnlyOnceAnFsyncCoversItsChange() {
        var durability = DurabilityMachine(policy: .always, revision: 0)
        var gate = RevisionGateMachine(reached: 0)
        _ = gate.wait(for: 1, Log().action("1"))
        #expect(feed(durability.appended(through: 1, at: 0), to: &gate).isEmpty)
        let covered = durability.syncStarting(at: 0, hasRetiredLogs: false)
        #expect(feed(durability.synced(through: covered ?? 0), to: &gate) == [1])
    }

    @Test func underAlwaysAFailedFsyncWakesTheWaitersOfTheChangesItLost() {
        var durability = DurabilityMachine(policy: .always, revision: 0)
        var gate = RevisionGateMachine(reached: 0)
        _ = gate.wait(for: 1, Log().action("1"))
        _ = feed(durability.appended(through: 1, at: 0), to: &gate)
        _ = durability.syncStarting(at: 0, hasRetiredLogs: false)
        #expect(feed(durability.syncFailed("Input/output error"), to: &gate) == [1])
        #expect(gate.loss(of: 1) != nil)
        #expect(gate.reached == 0)
    }

    @Test func underEverysecAFailedFsyncLosesNothingItsWaitersWaitOn() {
        // A stalled fsync holds acknowledging back: change 2 is written, not acknowledged.
        var durability = DurabilityMachine(policy: .everysec, revision: 0, stalledSyncNanoseconds: 10)
        var gate = RevisionGateMachine(reached: 0)
        _ = feed(durability.appended(through: 1, at: 0), to: &gate)
        _ = durability.syncStarting(at: 0, hasRetiredLogs: false)
        _ = gate.wait(for: 2, Log().action("2"))
        #expect(feed(durability.appended(through: 2, at: 100), to: &gate).isEmpty)
        #expect(feed(durability.syncFailed("Input/output error"), to: &gate).isEmpty)
        #expect(gate.loss(of: 2) == nil)
        #expect(gate.reached == 1)
        #expect(gate.waiterCount == 1)
    }

    /// Carries out what the durability machine decided on the gate, as storage
    /// does, and returns the revisions of the waiters woken.
    private func feed(_ actions: DurabilityMachine.Actions, to gate: inout RevisionGateMachine) -> [Int64] {
        var woken: [RevisionGateMachine.Woken] = []
        if let lost = actions.lose { woken += gate.lose(lost, because: lostError) }
        if let revision = actions.acknowledge { woken += gate.advance(to: revision) }
        if actions.closeGate { woken += gate.close() }
        return woken.map(\.target)
    }
}

/// Records which waiters ran, in order.
private final class Log: Sendable {
    private let recorded = Locked<[String]>([])

    var entries: [String] { recorded.withLock { $0 } }

    func action(_ name: String) -> @Sendable (RevisionGate.Ending) -> Void {
        { [recorded] _ in recorded.withLock { $0.append(name) } }
    }
}
