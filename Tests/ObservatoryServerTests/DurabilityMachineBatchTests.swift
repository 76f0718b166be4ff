import Testing

@testable import ObservatoryServer

/// The rules of `DurabilityMachine` for writes batched per loop turn: what a failed
/// batch write takes away, and what it leaves working.
@Suite struct DurabilityMachineBatchTests {
    private typealias Actions = DurabilityMachine.Actions

    private func machine(_ policy: FsyncPolicy, at revision: Int64 = 0) -> DurabilityMachine {
        DurabilityMachine(policy: policy, revision: revision, stalledSyncNanoseconds: 2_000_000_000)
    }

    @Test(arguments: [FsyncPolicy.everysec, .always])
    func aFailedBatchWriteLosesEveryChangeOfTheBatchAndWakesEveryWaiter(policy: FsyncPolicy) {
        var machine = machine(policy, at: 4)
        _ = machine.appended(through: 5, at: 0)
        let acknowledged = machine.acknowledgedRevision
        #expect(machine.batchWriteFailed(through: 8, "No space left on device") == Actions(lose: 6...8))
        #expect(!machine.isLost(5))
        #expect(machine.isLost(6) && machine.isLost(7) && machine.isLost(8))
        #expect(!machine.isLost(9))
        #expect(machine.acknowledgedRevision == acknowledged)
        #expect(machine.writtenRevision == 5)
    }

    @Test func aFailedBatchWriteRefusesChangesUntilARestartEvenAfterASnapshot() {
        var machine = machine(.everysec)
        _ = machine.appended(through: 2, at: 0)
        _ = machine.batchWriteFailed(through: 3, "No space left on device")
        #expect(machine.isFailed)
        #expect(!machine.needsRecovery)
        #expect(machine.refusalReason?.contains("until the server restarts") == true)
        _ = machine.snapshotWritten(through: 2)
        #expect(machine.isFailed)
        #expect(machine.acknowledgedRevision == 2)
        #expect(machine.isLost(3))
    }

    @Test func noSnapshotOfMemoryIsWrittenOnceABatchWasTakenBack() {
        var machine = machine(.everysec)
        #expect(machine.allowsSnapshots)
        _ = machine.logDamaged("Input/output error")
        #expect(machine.allowsSnapshots)
        _ = machine.batchWriteFailed(through: 1, "Input/output error")
        #expect(!machine.allowsSnapshots)
        #expect(machine.needsRecovery)
    }

    @Test func theWritersOfALostBatchAreToldTheirChangeWasNotMade() {
        var machine = machine(.everysec)
        _ = machine.batchWriteFailed(through: 1, "No space left on device")
        let message = machine.lostChangeError.message
        #expect(message.contains("No space left on device"))
        #expect(message.contains("this change was not made"))
    }

    @Test func fsyncsGoOnForWhatWasWrittenBeforeAFailedBatch() {
        var machine = machine(.always)
        _ = machine.appended(through: 2, at: 0)
        _ = machine.batchWriteFailed(through: 4, "No space left on device")
        #expect(machine.syncStarting(at: 0, hasRetiredLogs: false) == 2)
        #expect(machine.synced(through: 2) == Actions(acknowledge: 2))
        #expect(machine.syncStarting(at: 0, hasRetiredLogs: false) == nil)
        #expect(machine.syncsOnlyWhenWoken)
    }

    @Test func closingAfterAFailedBatchAcknowledgesOnlyWhatWasWritten() {
        var machine = machine(.always)
        _ = machine.appended(through: 2, at: 0)
        _ = machine.batchWriteFailed(through: 4, "No space left on device")
        #expect(machine.closed() == Actions(acknowledge: 2, closeGate: true))
    }

    @Test func aBatchWithNothingUnwrittenLosesNothing() {
        var machine = machine(.everysec)
        _ = machine.appended(through: 3, at: 0)
        _ = machine.batchWriteFailed(through: 3, "No space left on device")
        #expect(machine.lostRevisions.isEmpty)
    }

    @Test func aDamagedLogTakesNoBatchUntilASnapshotReplacesIt() {
        var machine = machine(.everysec)
        _ = machine.appended(through: 1, at: 0)
        _ = machine.logDamaged("Input/output error")
        #expect(machine.isLogDamaged)
        _ = machine.snapshotWritten(through: 1)
        #expect(!machine.isLogDamaged)
        #expect(!machine.isFailed)
    }

    @Test func aFailedFsyncLeavesTheLogTrustedForBatches() {
        var machine = machine(.always)
        _ = machine.appended(through: 1, at: 0)
        _ = machine.syncStarting(at: 0, hasRetiredLogs: false)
        _ = machine.syncFailed("Input/output error")
        #expect(machine.needsRecovery)
        #expect(!machine.isLogDamaged)
    }
}
