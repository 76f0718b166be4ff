import Testing

@testable import ObservatoryServer

/// Every rule of `DurabilityMachine`, without files: what is acknowledged when,
/// under each fsync policy, and what a failure takes away.
@Suite struct DurabilityMachineTests {
    private typealias Actions = DurabilityMachine.Actions
    private let second: UInt64 = 1_000_000_000

    private func machine(_ policy: FsyncPolicy, at revision: Int64 = 0) -> DurabilityMachine {
        DurabilityMachine(policy: policy, revision: revision, stalledSyncNanoseconds: 2 * second)
    }

    // MARK: everysec

    @Test func everysecAcknowledgesAChangeOnceItIsWritten() {
        var machine = machine(.everysec, at: 4)
        #expect(machine.appended(through: 5, at: 0) == Actions(acknowledge: 5))
        #expect(machine.acknowledgedRevision == 5)
        #expect(machine.writtenRevision == 5)
        #expect(machine.syncedRevision == 4)
    }

    @Test func everysecAcknowledgesDuringAnFsyncThatIsNotStalled() {
        var machine = machine(.everysec)
        _ = machine.appended(through: 1, at: 0)
        #expect(machine.syncStarting(at: 10 * second, hasRetiredLogs: false) == 1)
        #expect(machine.appended(through: 2, at: 11 * second) == Actions(acknowledge: 2))
    }

    @Test func everysecStopsAcknowledgingWhileAnFsyncIsStalled() {
        var machine = machine(.everysec)
        _ = machine.appended(through: 1, at: 0)
        _ = machine.syncStarting(at: 10 * second, hasRetiredLogs: false)
        #expect(machine.appended(through: 2, at: 13 * second) == .none)
        #expect(machine.acknowledgedRevision == 1)
    }

    @Test func everysecAcknowledgesWhatWasWrittenOnceAStalledFsyncEnds() {
        var machine = machine(.everysec)
        _ = machine.appended(through: 1, at: 0)
        _ = machine.syncStarting(at: 10 * second, hasRetiredLogs: false)
        _ = machine.appended(through: 2, at: 13 * second)
        #expect(machine.synced(through: 1) == Actions(acknowledge: 2))
        #expect(machine.syncedRevision == 1)
        #expect(!machine.isSyncing)
    }

    @Test func everysecWakesTheSyncerOnlyOnItsSchedule() {
        var machine = machine(.everysec)
        #expect(!machine.appended(through: 1, at: 0).wakeSyncer)
        #expect(!machine.syncsOnlyWhenWoken)
    }

    // MARK: always

    @Test func alwaysAcknowledgesNothingBeforeAnFsyncCoversIt() {
        var machine = machine(.always)
        #expect(machine.appended(through: 1, at: 0) == Actions(wakeSyncer: true))
        #expect(machine.acknowledgedRevision == 0)
        #expect(machine.syncsOnlyWhenWoken)
    }

    @Test func alwaysAcknowledgesWhatAnFsyncCovered() {
        var machine = machine(.always)
        _ = machine.appended(through: 1, at: 0)
        #expect(machine.syncStarting(at: 0, hasRetiredLogs: false) == 1)
        #expect(machine.synced(through: 1) == Actions(acknowledge: 1))
    }

    @Test func alwaysLeavesAChangeWrittenDuringAnFsyncToTheNextOne() {
        var machine = machine(.always)
        _ = machine.appended(through: 1, at: 0)
        let covered = machine.syncStarting(at: 0, hasRetiredLogs: false)
        _ = machine.appended(through: 2, at: 0)
        #expect(machine.synced(through: covered ?? 0) == Actions(acknowledge: 1, wakeSyncer: true))
        #expect(machine.syncStarting(at: 0, hasRetiredLogs: false) == 2)
        #expect(machine.synced(through: 2) == Actions(acknowledge: 2))
    }

    @Test func alwaysLeavesTheFsyncOfABatchToItsWriterWithoutWakingTheSyncer() {
        var machine = machine(.always)
        #expect(machine.appended(through: 1, at: 0, writerSyncs: true) == .none)
        #expect(machine.acknowledgedRevision == 0)
        #expect(machine.syncStarting(at: 0, hasRetiredLogs: false) == 1)
        #expect(machine.synced(through: 1) == Actions(acknowledge: 1))
    }

    @Test func oneFsyncRunsAtATime() {
        var machine = machine(.always)
        _ = machine.appended(through: 1, at: 0)
        #expect(machine.syncStarting(at: 0, hasRetiredLogs: false) == 1)
        _ = machine.appended(through: 2, at: 0, writerSyncs: true)
        #expect(machine.syncStarting(at: 0, hasRetiredLogs: true) == nil)
        #expect(machine.isSyncing)
    }

    @Test func aBatchWrittenWhileAnotherFsyncRanIsLeftToTheSyncerWhenThatOneEnds() {
        var machine = machine(.always)
        _ = machine.appended(through: 1, at: 0)
        let covered = machine.syncStarting(at: 0, hasRetiredLogs: false)
        #expect(machine.appended(through: 2, at: 0, writerSyncs: true) == .none)
        #expect(machine.syncStarting(at: 0, hasRetiredLogs: false) == nil)
        #expect(machine.synced(through: covered ?? 0) == Actions(acknowledge: 1, wakeSyncer: true))
        #expect(machine.syncStarting(at: 0, hasRetiredLogs: false) == 2)
        #expect(machine.synced(through: 2) == Actions(acknowledge: 2))
    }

    @Test func everysecWakesNoSyncerWhenAnFsyncEndsBehindTheWrittenRevision() {
        var machine = machine(.everysec)
        _ = machine.appended(through: 1, at: 0)
        _ = machine.syncStarting(at: 0, hasRetiredLogs: false)
        _ = machine.appended(through: 2, at: 0)
        #expect(!machine.synced(through: 1).wakeSyncer)
    }

    @Test func recordsWithoutAChangeAcknowledgeNothing() {
        var everysec = machine(.everysec, at: 3)
        #expect(everysec.appended(through: nil, at: 0) == .none)
        var always = machine(.always, at: 3)
        #expect(always.appended(through: nil, at: 0) == Actions(wakeSyncer: true))
        #expect(always.writtenRevision == 3)
    }

    // MARK: Syncing

    @Test func thereIsNothingToSyncWithoutANewChangeOrARetiredLog() {
        var machine = machine(.everysec, at: 7)
        #expect(machine.syncStarting(at: 0, hasRetiredLogs: false) == nil)
        #expect(!machine.isSyncing)
        #expect(machine.syncStarting(at: 0, hasRetiredLogs: true) == 7)
        #expect(machine.isSyncing)
    }

    @Test func anFsyncBehindTheAcknowledgedRevisionAcknowledgesNothingAgain() {
        var machine = machine(.everysec)
        _ = machine.appended(through: 5, at: 0)
        #expect(machine.synced(through: 3) == .none)
        #expect(machine.acknowledgedRevision == 5)
        #expect(machine.syncedRevision == 3)
        #expect(machine.synced(through: 2) == .none)
        #expect(machine.syncedRevision == 3)
    }

    // MARK: Failures

    @Test func aFailedFsyncUnderAlwaysLosesTheChangesWaitingForIt() {
        var machine = machine(.always, at: 1)
        _ = machine.appended(through: 2, at: 0)
        _ = machine.appended(through: 3, at: 0)
        _ = machine.syncStarting(at: 0, hasRetiredLogs: false)
        let actions = machine.syncFailed("Input/output error")
        #expect(actions == Actions(lose: 2...3, wakeSyncer: true))
        #expect(!machine.isLost(1))
        #expect(machine.isLost(2))
        #expect(machine.isLost(3))
        #expect(!machine.isSyncing)
        #expect(machine.lostChangeError.message.contains("Input/output error"))
    }

    @Test func aFailedFsyncUnderEverysecLosesNoChangeEvenOneAStallHeldBack() {
        var machine = machine(.everysec)
        _ = machine.appended(through: 1, at: 0)
        _ = machine.syncStarting(at: 10 * second, hasRetiredLogs: false)
        _ = machine.appended(through: 2, at: 13 * second)
        _ = machine.syncFailed("Input/output error")
        #expect(machine.lostRevisions.isEmpty)
        #expect(machine.isFailed)
    }

    @Test func failedStorageRefusesToSyncAndRetriesOnceASecond() {
        var machine = machine(.always)
        _ = machine.appended(through: 1, at: 0)
        _ = machine.logDamaged("No space left on device")
        #expect(machine.syncStarting(at: 0, hasRetiredLogs: true) == nil)
        #expect(!machine.syncsOnlyWhenWoken)
    }

    @Test func aDamagedLogUnderAlwaysWakesTheSyncerAndLosesTheChangesWaitingForAnFsync() {
        var machine = machine(.always)
        _ = machine.appended(through: 1, at: 0)
        #expect(machine.logDamaged("No space left on device") == Actions(lose: 1...1, wakeSyncer: true))
        #expect(machine.isLost(1))
    }

    @Test func aSecondFailureKeepsTheFirstReasonAndLosesNothingMore() {
        var machine = machine(.always)
        _ = machine.appended(through: 1, at: 0)
        _ = machine.logDamaged("first")
        #expect(machine.syncFailed("second") == .none)
        #expect(machine.failure == "first")
        #expect(machine.lostRevisions == [1...1])
    }

    @Test func aLostChangeWithoutAFailureBlamesAnFsync() {
        #expect(machine(.always).lostChangeError.message.hasPrefix("storage: an fsync failed;"))
    }

    // MARK: Snapshots and closing

    @Test func aSnapshotEndsAFailureAndAcknowledgesEverythingItOrTheLogHolds() {
        var machine = machine(.always)
        _ = machine.appended(through: 4, at: 0)
        _ = machine.logDamaged("No space left on device")
        #expect(machine.snapshotWritten(through: 3) == Actions(acknowledge: 4))
        #expect(!machine.isFailed)
        #expect(machine.syncedRevision == 3)
        #expect(machine.isLost(4))
    }

    @Test func aSnapshotUnderAlwaysAcknowledgesWhatItPutOnDisk() {
        var machine = machine(.always)
        _ = machine.appended(through: 4, at: 0)
        #expect(machine.snapshotWritten(through: 3) == Actions(acknowledge: 3))
    }

    @Test func aSnapshotUnderEverysecAcknowledgesNothingNew() {
        var machine = machine(.everysec)
        _ = machine.appended(through: 4, at: 0)
        #expect(machine.snapshotWritten(through: 4) == .none)
        #expect(machine.syncedRevision == 4)
    }

    @Test func closingAcknowledgesEverythingWrittenAndWakesEveryWaiter() {
        var machine = machine(.always)
        _ = machine.appended(through: 2, at: 0)
        #expect(machine.closed() == Actions(acknowledge: 2, closeGate: true))
    }
}
