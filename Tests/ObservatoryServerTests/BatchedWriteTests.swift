import Foundation
import Observatory
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

private final class ChangeRecorder: Observer {
    let receiver = Receiver()
    var changes: [StoreChange] = []
}

/// Sessions' writes batched per loop turn (`SharedStore+Batching.swift`), without
/// sockets: `endOfTurn` is what each event loop calls before it flushes.
@Suite(.timeLimit(.minutes(1))) struct BatchedWriteTests: StorageSuite {
    let directory: TemporaryDirectory
    let files = FaultyFiles()

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func set(
        _ store: SharedStore, _ key: String, _ value: EncodedJSON, ifVersion: Int64? = nil,
        requestId: String? = nil
    ) throws(WireError) -> ReplyPayload {
        let write = Write.set(key: key, value: value, ifVersion: ifVersion, sessionBound: false, requestId: requestId)
        guard case .ready(let payload) = try store.apply(write, by: alice) else {
            throw WireError(code: .internalError, message: "the local store answered later")
        }
        return payload
    }

    private func observeEverything(_ store: SharedStore) -> ChangeRecorder {
        let recorder = ChangeRecorder()
        _ = store.observe(.prefix(""), by: recorder, subscribe: true) { recorder.changes.append($0) }
        return recorder
    }

    @Test func theChangesOfATurnAreWrittenInOneWriteAndOnlyThenAcknowledgedAndAnnounced() throws {
        let context = try open(.everysec, files: files)
        let storage = try storage(of: context)
        let endOfTurn = try #require(context.store.batchWritesPerTurn())
        let recorder = observeEverything(context.store)
        let writes = files.count(of: .write)
        for index in 0..<10 {
            #expect(try set(context.store, "k.\(index)", .integer(Int64(index))).version == Int64(index) + 1)
        }
        #expect(files.count(of: .write) == writes)
        #expect(storage.acknowledgedRevision == 0)
        #expect(recorder.changes.isEmpty)
        endOfTurn()
        #expect(files.count(of: .write) == writes + 1)
        #expect(storage.acknowledgedRevision == 10)
        #expect(context.store.revision == 10)
        #expect(recorder.changes.map(\.version) == Array(1...10))
    }

    @Test func underAlwaysTheTurnThatWritesABatchFsyncsItAndAcknowledgesItBeforeItEnds() throws {
        let context = try open(.always, files: files)
        let storage = try storage(of: context)
        let endOfTurn = try #require(context.store.batchWritesPerTurn())
        let syncs = files.count(of: .synchronize)
        for index in 0..<5 {
            _ = try set(context.store, "k.\(index)", .integer(Int64(index)))
        }
        #expect(storage.acknowledgedRevision == 0)
        endOfTurn()
        // Synced on this thread, before the turn's flush: no syncer thread to wake or wait for.
        #expect(files.count(of: .synchronize) == syncs + 1)
        #expect(files.lastSynchronizeThread == UInt(bitPattern: Int(bitPattern: pthread_self())))
        #expect(storage.acknowledgedRevision == 5)
    }

    @Test func aReadWritesTheUnwrittenChangesBeforeItLooks() throws {
        let context = try open(.everysec, files: files)
        let storage = try storage(of: context)
        _ = try #require(context.store.batchWritesPerTurn())
        _ = try set(context.store, "k", 1)
        let writes = files.count(of: .write)
        #expect(context.store.get("k")?.value == 1)
        #expect(files.count(of: .write) == writes + 1)
        #expect(storage.acknowledgedRevision == 1)
        // The revision of `ping` and `hello`: never behind a write already answered.
        _ = try set(context.store, "k", 2)
        #expect(context.store.revision == 2)
        #expect(files.count(of: .write) == writes + 2)
    }

    @Test func anAnswerFromTheStateNamesOnlyWrittenVersions() throws {
        let context = try open(.everysec, files: files)
        let endOfTurn = try #require(context.store.batchWritesPerTurn())
        _ = try set(context.store, "k", 1)
        endOfTurn()
        _ = try set(context.store, "k", 2)
        files.fail(.write, with: ENOSPC)
        // The conflict is found against version 2, which is not written: it is
        // planned again once the batch is written, and that write fails.
        #expect {
            try set(context.store, "k", 3, ifVersion: 1)
        } throws: { error in
            (error as? WireError)?.message.contains("until the server restarts") == true
        }
        #expect(context.store.get("k")?.version == 1)
    }

    @Test func aFailedBatchWriteLeavesNoVisibleChangeAndItsWritersGetAnError() throws {
        let context = try open(.everysec, files: files)
        let storage = try storage(of: context)
        let endOfTurn = try #require(context.store.batchWritesPerTurn())
        _ = try set(context.store, "k", 1)
        endOfTurn()
        let recorder = observeEverything(context.store)
        _ = try set(context.store, "k", 2)
        _ = try set(context.store, "fresh", true, requestId: "r1")
        _ = try context.store.apply(.delete(key: "k", ifVersion: nil, requestId: nil), by: alice)
        files.fail(.write, with: ENOSPC)
        endOfTurn()
        files.heal(.write)

        #expect(context.store.get("k") == RawValueEntry(key: "k", value: 1, version: 1, author: "alice", session: "s1"))
        #expect(context.store.get("fresh") == nil)
        #expect(context.store.list(prefix: "") == [KeyVersion(key: "k", version: 1)])
        #expect(context.store.revision == 1)
        #expect(recorder.changes.isEmpty)
        #expect(storage.acknowledgedRevision == 1)
        #expect((2...4).allSatisfy { storage.gate.loss(of: $0) != nil })
        let waiterRan = Locked(false)
        storage.gate.wait(for: 3) { waiterRan.withLock { $0 = true } }
        #expect(waiterRan.withLock { $0 })
        let lost = try #require(storage.gate.loss(of: 3))
        #expect(lost.message.contains("No space left on device"))
        #expect(lost.message.contains("this change was not made"))
        // No later change may take a lost change's number, nor a retry be answered as made.
        #expect(throws: WireError.self) { try set(context.store, "k", 5) }
        #expect(throws: WireError.self) { try set(context.store, "fresh", true, requestId: "r1") }
        // Memory still remembers "r1": no snapshot of it may reach the disk.
        #expect(throws: StorageError.self) { try storage.compactNow() }
        storage.abandon()

        let reopened = try open(.everysec)
        #expect(reopened.store.get("k")?.value == 1)
        #expect(reopened.store.get("fresh") == nil)
        #expect(reopened.store.revision == 1)
        let retried = try reopened.store.set("fresh", to: true, requestId: "r1", by: alice)
        #expect(retried == .set(key: "fresh", version: 2, changed: true, duplicate: false))
    }

    @Test func aCrashBeforeTheEndOfTheTurnTakesBackOnlyChangesNobodySaw() throws {
        let context = try open(.everysec, files: files)
        let endOfTurn = try #require(context.store.batchWritesPerTurn())
        _ = try set(context.store, "k", 1)
        endOfTurn()
        let recorder = observeEverything(context.store)
        _ = try set(context.store, "k", 2)
        #expect(recorder.changes.isEmpty)
        #expect(try storage(of: context).acknowledgedRevision == 1)
        try storage(of: context).abandon()

        let reopened = try open(.everysec)
        #expect(reopened.store.get("k")?.value == 1)
        #expect(reopened.store.revision == 1)
    }

    @Test func withoutEventLoopsEveryChangeIsWrittenAsItIsMade() throws {
        let context = try open(.everysec, files: files)
        let writes = files.count(of: .write)
        _ = try set(context.store, "k", 1)
        _ = try set(context.store, "k", 2)
        #expect(files.count(of: .write) == writes + 2)
        #expect(try storage(of: context).acknowledgedRevision == 2)
    }
}
