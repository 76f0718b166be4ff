import Dispatch
import Foundation
import Observatory
import ObservatoryLogging
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Storage under the store, in this process (see `StorageFixture`): restarts,
/// failures while running, compaction.
@Suite(.timeLimit(.minutes(2))) struct StorageTests: StorageSuite {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    // MARK: Restarts

    @Test(arguments: [FsyncPolicy.everysec, .always])
    func aRestartRestoresEveryKeyValueVersionAuthorRevisionAndEpoch(fsync: FsyncPolicy) throws {
        let first = try open(fsync)
        try first.store.set("sky.color", to: "blue", by: alice)
        try first.store.set("sky.color", to: ["rgb": [0, 0.5, 1], "name": "é"], by: bob)
        try first.store.set("sea.level", to: 3, by: alice)
        try first.store.set("gone", to: true, by: alice)
        try first.store.delete("gone", by: bob)
        let before = contents(of: first.store)
        let epoch = first.store.epoch
        try storage(of: first).close()

        let second = try open(fsync)
        #expect(contents(of: second.store) == before)
        #expect(second.store.get("sky.color")?.author == "bob")
        #expect(second.store.get("sky.color")?.session == "s2")
        #expect(second.store.get("gone") == nil)
        #expect(second.store.revision == 5)
        #expect(second.store.epoch == epoch)
        #expect(try second.store.set("after", to: 1, by: alice).version == 6)
    }

    @Test func aCrashLosesNoWrittenChange() throws {
        let first = try open(.everysec)
        for index in 0..<500 {
            try first.store.set("k.\(index % 50)", to: .integer(Int64(index)), by: alice)
        }
        let before = contents(of: first.store)
        try storage(of: first).abandon()

        let second = try open(.everysec)
        #expect(contents(of: second.store) == before)
        #expect(second.store.revision == 500)
    }

    @Test func theEpochIsKeptWithStorageAndNewAtEveryStartWithout() throws {
        let first = try open(.everysec)
        let kept = first.store.epoch
        try storage(of: first).close()
        #expect(try open(.everysec).store.epoch == kept)
        let memoryEpochs = try (0..<3).map { _ in try SessionFixture(configuration: testConfiguration()).store.epoch }
        #expect(Set(memoryEpochs + [kept]).count == 4)
        #expect(directory.names() == ["data"])
    }

    @Test func sessionNumbersNeverRepeatAcrossRestarts() throws {
        var seen = Set<String>()
        for _ in 0..<3 {
            let context = try open(.everysec)
            for _ in 0..<5 {
                #expect(seen.insert(context.environment.sessionNumbers.next()).inserted)
            }
            try storage(of: context).abandon()
        }
        #expect(seen.count == 15)
    }

    @Test func aSecondOpenOfTheDirectoryIsRefusedNamingItAndTheHolder() throws {
        let first = try open(.everysec)
        defer { first.store.storage?.close() }
        do {
            _ = try open(.everysec)
            Issue.record("a second open succeeded")
        } catch let error as StorageError {
            #expect(error.code == .directoryInUse)
            #expect(error.message.contains(directory.path(of: "data")))
            #expect(error.message.contains("pid \(getpid())"))
        }
    }

    @Test func aDirectoryThatCannotBeCreatedStopsTheStartWithTheReason() throws {
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory.path(of: "file")))
        var configuration = testConfiguration()
        configuration.fsync = .everysec
        configuration.dataDirectory = directory.path(of: "file/data")
        do {
            _ = try SessionFixture(configuration: configuration)
            Issue.record("started on a path below a file")
        } catch let error as StorageError {
            #expect(error.message.contains("Not a directory"))
            #expect(error.message.contains(directory.path(of: "file")))
        }
        let files = FaultyFiles()
        files.fail(.createDirectory, with: EACCES)
        #expect(throws: StorageError.self) { try open(.everysec, files: files) }
        files.heal(.createDirectory)
        files.fail(.lock, with: EROFS)
        do {
            _ = try open(.everysec, files: files)
            Issue.record("started on a read-only directory")
        } catch let error as StorageError {
            #expect(error.message.contains("Read-only file system"))
        }
    }

    // MARK: Failures while running

    @Test func aFailedWriteMakesNoChangeAndWritesWorkAgainOnceStorageDoes() throws {
        let files = FaultyFiles()
        let context = try open(.everysec, files: files)
        try context.store.set("k", to: 1, by: alice)
        files.fail(.write, with: ENOSPC)
        #expect {
            try context.store.set("k", to: 2, by: alice)
        } throws: { error in
            let wire = error as? WireError
            return wire?.code == .internalError && wire?.message.contains("No space left on device") == true
        }
        #expect(throws: WireError.self) { try context.store.delete("k", by: alice) }
        #expect(context.store.get("k")?.value == 1)
        #expect(context.store.revision == 1)
        files.heal(.write)
        #expect(try context.store.set("k", to: 3, by: alice).version == 2)
        try storage(of: context).close()

        let reopened = try open(.everysec)
        #expect(reopened.store.get("k")?.value == 3)
        #expect(reopened.store.revision == 2)
    }

    @Test func aLogThatCannotBeCutBackRefusesChangesUntilASnapshotReplacesIt() throws {
        let files = FaultyFiles()
        let context = try open(.everysec, files: files)
        try context.store.set("k", to: 1, by: alice)
        files.fail(.write, with: EIO)
        files.fail(.truncate, with: EIO)
        #expect(throws: WireError.self) { try context.store.set("k", to: 2, by: alice) }
        files.heal(.write)
        files.heal(.truncate)
        // Storage retries once a second; reads go on meanwhile.
        #expect(context.store.get("k")?.value == 1)
        var written = false
        try waitUntil("a write after recovery", timeout: .seconds(15)) {
            written = (try? context.store.set("k", to: 3, by: alice)) != nil
            return written
        }
        #expect(written)
        try storage(of: context).close()
        let reopened = try open(.everysec)
        #expect(reopened.store.get("k")?.value == 3)
    }

    @Test func aFailedFsyncUnderAlwaysLosesTheWaitingChangesToTheirWriters() throws {
        let files = FaultyFiles()
        let context = try open(.always, files: files)
        let storage = try storage(of: context)
        try context.store.set("k", to: 1, by: alice)
        try waitUntil { storage.acknowledgedRevision == 1 }
        files.fail(.synchronize, with: EIO)
        try context.store.set("k", to: 2, by: alice)
        try waitUntil { storage.gate.loss(of: 2) != nil }
        #expect(storage.acknowledgedRevision == 1)
        #expect(storage.gate.loss(of: 2)?.message.contains("Input/output error") == true)
        #expect(throws: WireError.self) { try context.store.set("k", to: 3, by: alice) }
        files.heal(.synchronize)
        try waitUntil { (try? context.store.set("k", to: 4, by: alice)) != nil }
        try waitUntil { storage.acknowledgedRevision >= 3 }
        #expect(storage.gate.loss(of: 2) != nil)
        #expect(storage.gate.loss(of: 3) == nil)
    }

    @Test func underAlwaysChangesArriveDuringOneFsyncShareTheNext() throws {
        let files = FaultyFiles()
        let context = try open(.always, files: files)
        let storage = try storage(of: context)
        files.holdSynchronize()
        try context.store.set("first", to: 0, by: alice)
        #expect(files.synchronizeStarted.wait(timeout: .now() + 10) == .success)
        let before = files.count(of: .synchronize)
        let store = context.store
        let writer = bob
        DispatchQueue.concurrentPerform(iterations: 50) { index in
            _ = try? store.set("k.\(index)", to: .integer(Int64(index)), by: writer)
        }
        #expect(storage.acknowledgedRevision == 0)
        files.releaseSynchronize()
        try waitUntil { storage.acknowledgedRevision == 51 }
        // One fsync for the first change, then one (or two, if one had just started) for all fifty.
        #expect(files.count(of: .synchronize) - before <= 2)
    }

    @Test func underEverysecAStuckFsyncStopsAcknowledgingUntilItCompletes() throws {
        let files = FaultyFiles()
        var configuration = testConfiguration()
        configuration.fsync = .everysec
        configuration.dataDirectory = directory.path(of: "data")
        var options = StorageOptions(fsync: .everysec, files: files)
        options.stalledSyncNanoseconds = 100_000_000
        let context = try SessionFixture(configuration: configuration, storageOptions: options)
        let storage = try storage(of: context)
        try context.store.set("k", to: 1, by: alice)
        #expect(storage.acknowledgedRevision == 1)
        files.holdSynchronize()
        #expect(files.synchronizeStarted.wait(timeout: .now() + 10) == .success)
        let stalledAt = DispatchTime.now().uptimeNanoseconds + 2 * options.stalledSyncNanoseconds
        try context.store.set("k", to: 2, by: alice)
        // The fsync counts as stalled once it has run longer than its threshold: the clock is the condition.
        try waitUntil("the fsync to stall") { DispatchTime.now().uptimeNanoseconds >= stalledAt }
        try context.store.set("k", to: 3, by: alice)
        #expect(storage.acknowledgedRevision == 2)
        files.releaseSynchronize()
        try waitUntil { storage.acknowledgedRevision == 3 }
    }

    // MARK: Compaction

    @Test func compactionReplacesTheLogsWithASnapshotAndLosesNothing() throws {
        let context = try open(.everysec)
        for index in 0..<1_000 {
            try context.store.set("k.\(index % 300)", to: ["i": .integer(Int64(index))], by: alice)
        }
        try storage(of: context).compactNow()
        try context.store.set("after", to: "compaction", by: bob)
        let before = contents(of: context.store)
        try storage(of: context).close()
        #expect(directory.names().count == 1)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path(of: "data")).sorted()
        #expect(names == ["LOCK", "log-0000000002.obs", "snapshot-0000000002.obs"])

        let reopened = try open(.everysec)
        #expect(contents(of: reopened.store) == before)
        #expect(reopened.store.revision == 1_001)
    }

    @Test func compactionStartsByItselfPastTheThresholdWhileWritersGoOn() throws {
        let context = try open(.everysec, compactionLogBytes: 16_384)
        for index in 0..<2_000 {
            try context.store.set("k.\(index % 100)", to: .integer(Int64(index)), by: alice)
        }
        let dataPath = directory.path(of: "data")
        try waitUntil {
            ((try? FileManager.default.contentsOfDirectory(atPath: dataPath)) ?? []).contains {
                $0.hasPrefix("snapshot-")
            }
        }
        let before = contents(of: context.store)
        try storage(of: context).close()
        #expect(contents(of: try open(.everysec).store) == before)
    }

    @Test(arguments: CompactionStep.allCases)
    func aCrashAtAnyCompactionStepLosesNothing(step: CompactionStep) throws {
        let context = try open(.everysec) { $0 != step }
        for index in 0..<400 {
            try context.store.set("k.\(index % 120)", to: .string("v\(index)"), by: index % 2 == 0 ? alice : bob)
        }
        try context.store.delete("k.7", by: alice)
        let before = contents(of: context.store)
        let revision = context.store.revision
        let epoch = context.store.epoch
        try? storage(of: context).compactNow()
        // Writes after the crash point are refused: storage stopped as the process would.
        #expect(throws: WireError.self) { try context.store.set("late", to: 1, by: alice) }

        let reopened = try open(.everysec)
        #expect(contents(of: reopened.store) == before)
        #expect(reopened.store.revision == revision)
        #expect(reopened.store.epoch == epoch)
        #expect(try reopened.store.set("next", to: 1, by: alice).version == revision + 1)
        try storage(of: reopened).compactNow()
        try storage(of: reopened).close()
        #expect(contents(of: try open(.everysec).store).count == before.count + 1)
    }

    @Test func afterARestartListReturnsExactlyTheKeysInByteOrder() throws {
        let first = try open(.everysec)
        for key in ["m.1", "m.3", "m.5", "caf\u{E9}", "z"] { try first.store.set(key, to: 1, by: alice) }
        try storage(of: first).compactNow()
        for key in ["m.2", "a", "m.4", "cafe\u{301}"] { try first.store.set(key, to: 2, by: bob) }
        try first.store.delete("m.3", by: alice)
        try first.store.delete("z", by: alice)
        try first.store.set("z", to: 3, by: alice)
        try first.store.delete("m.4", by: bob)
        let expected = first.store.list(prefix: "").map(\.key)
        try storage(of: first).close()

        let reopened = try open(.everysec)
        let listed = reopened.store.list(prefix: "").map(\.key)
        #expect(listed.map { Array($0.utf8) } == expected.map { Array($0.utf8) })
        #expect(listed.count == 7)
        #expect(
            listed.map { Array($0.utf8) }
                == listed.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.map { Array($0.utf8) })
        #expect(reopened.store.list(prefix: "m.").map(\.key) == ["m.1", "m.2", "m.5"])
    }
}
