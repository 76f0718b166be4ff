import Dispatch
import Foundation
import Observatory
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// An observer whose handler reads the store.
private final class ReadingObserver: Observer {
    let receiver = Receiver()
}

/// Storage's `write(2)` runs with no lock held (`WriteClaimMachine`): while one
/// is in flight (a write the test holds), other threads go on with what the
/// durability rules allow, and wait only for what they forbid.
@Suite(.timeLimit(.minutes(1))) struct WriteInFlightTests: StorageSuite {
    let directory: TemporaryDirectory
    let files = FaultyFiles()

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A session's write, batched per loop turn once the store batches.
    private static func set(
        _ store: SharedStore, _ key: String, _ value: Int64, by author: Author
    ) throws(WireError) -> ReplyPayload {
        let write = Write.set(key: key, value: .integer(value), ifVersion: nil, sessionBound: false, requestId: nil)
        guard case .ready(let payload) = try store.apply(write, by: author) else {
            throw WireError(code: .internalError, message: "the local store answered later")
        }
        return payload
    }

    /// Runs `work` on another thread; returns what it returned, or `nil` when it
    /// did not return within `seconds`.
    private func onAnotherThread<Value: Sendable>(
        within seconds: Double, _ work: @escaping @Sendable () -> Value
    ) -> Value? {
        let result = Locked<Value?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let value = work()
            result.withLock { $0 = value }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return result.withLock { $0 }
    }

    /// Starts the end of a loop turn on another thread and waits until its
    /// `write(2)` is held; returns what is signalled when the turn ends.
    private func holdTheEndOfATurn(_ endOfTurn: @escaping @Sendable () -> Void) throws -> DispatchSemaphore {
        files.holdWrite()
        let turnEnded = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            endOfTurn()
            turnEnded.signal()
        }
        try #require(files.writeStarted.wait(timeout: .now() + 10) == .success)
        return turnEnded
    }

    @Test func aSessionsWriteGoesOnWhileATurnsWriteIsInFlightAndReadersWaitForIt() throws {
        let context = try open(.everysec, files: files)
        let store = context.store
        let storage = try storage(of: context)
        let endOfTurn = try #require(store.batchWritesPerTurn())
        let alice = alice
        _ = try Self.set(store, "k", 1, by: alice)
        defer { files.releaseWrite() }
        let turnEnded = try holdTheEndOfATurn(endOfTurn)

        // Memory-only work of another thread does not wait for the write.
        let written = onAnotherThread(within: 5) { (try? Self.set(store, "other", 2, by: alice))?.version }
        #expect(written == .some(2))
        #expect(onAnotherThread(within: 5) { store.bytes.store } != nil)
        // A read waits: the state holds changes being written.
        let read = Locked<RawValueEntry??>(nil)
        let readDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let entry = store.get("other")
            read.withLock { $0 = entry }
            readDone.signal()
        }
        #expect(readDone.wait(timeout: .now() + 0.3) == .timedOut)
        #expect(storage.acknowledgedRevision == 0)

        files.releaseWrite()
        #expect(turnEnded.wait(timeout: .now() + 10) == .success)
        #expect(readDone.wait(timeout: .now() + 10) == .success)
        // The claimant wrote what was applied during its write before it left.
        #expect(read.withLock { $0 }??.version == 2)
        #expect(storage.acknowledgedRevision == 2)
        #expect(store.get("k")?.version == 1)
    }

    @Test func aHandlerRunAfterAWriteMayReadTheStoreWhileChangesAppliedDuringTheWriteAreUnwritten() throws {
        let context = try open(.everysec, files: files)
        let store = context.store
        let endOfTurn = try #require(store.batchWritesPerTurn())
        let alice = alice
        let observer = ReadingObserver()
        let read = Locked<[Int64?]>([])
        _ = store.observe(.prefix(""), by: observer, subscribe: true) { change in
            let version = store.get(change.key)?.version
            read.withLock { $0.append(version) }
        }
        _ = try Self.set(store, "k", 1, by: alice)
        defer { files.releaseWrite() }
        let turnEnded = try holdTheEndOfATurn(endOfTurn)
        _ = try Self.set(store, "other", 2, by: alice)

        files.releaseWrite()
        // The claimant's own handler reads while "other" is unwritten: no claim of its own is in flight then.
        #expect(turnEnded.wait(timeout: .now() + 10) == .success)
        try waitUntil("both changes were handled", timeout: .seconds(10)) { read.withLock { $0.count } == 2 }
        #expect(read.withLock { $0 } == [1, 2])
    }

    @Test func readsGoOnWhileAnAppendIsInFlightAndSeeItsChangeOnlyOnceApplied() throws {
        let context = try open(.everysec, files: files)
        let store = context.store
        let alice = alice
        try store.set("k", to: 1, by: alice)
        files.holdWrite()
        defer { files.releaseWrite() }
        let appended = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? store.set("k", to: 2, by: alice)
            appended.signal()
        }
        try #require(files.writeStarted.wait(timeout: .now() + 10) == .success)

        #expect(onAnotherThread(within: 5) { store.get("k")?.version } == .some(1))
        #expect(onAnotherThread(within: 5) { store.revision } == .some(1))

        files.releaseWrite()
        #expect(appended.wait(timeout: .now() + 10) == .success)
        #expect(store.get("k")?.version == 2)
    }

    @Test func readsGoOnWhileACompactionStartsItsNewLogAndChangesWaitForIt() throws {
        let context = try open(.everysec, files: files)
        let store = context.store
        let storage = try storage(of: context)
        let alice = alice
        try store.set("k", to: 1, by: alice)
        files.holdWrite()
        defer { files.releaseWrite() }
        let compacted = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? storage.compactNow()
            compacted.signal()
        }
        // The new log's header is being written.
        try #require(files.writeStarted.wait(timeout: .now() + 10) == .success)
        #expect(onAnotherThread(within: 5) { store.get("k")?.version } == .some(1))
        let changed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? store.set("k", to: 2, by: alice)
            changed.signal()
        }
        #expect(changed.wait(timeout: .now() + 0.3) == .timedOut)

        files.releaseWrite()
        #expect(compacted.wait(timeout: .now() + 10) == .success)
        #expect(changed.wait(timeout: .now() + 10) == .success)
        storage.close()
        let reopened = try open(.everysec)
        #expect(reopened.store.get("k")?.version == 2)
    }

    @Test func aFailedWriteTakesBackTheClaimedChangesAndThoseAppliedMeanwhile() throws {
        let context = try open(.everysec, files: files)
        let store = context.store
        let storage = try storage(of: context)
        let endOfTurn = try #require(store.batchWritesPerTurn())
        let alice = alice
        _ = try Self.set(store, "k", 1, by: alice)
        endOfTurn()
        _ = try Self.set(store, "k", 2, by: alice)
        defer { files.releaseWrite() }
        let turnEnded = try holdTheEndOfATurn(endOfTurn)
        let meanwhile = onAnotherThread(within: 5) { (try? Self.set(store, "fresh", 3, by: alice))?.version }
        #expect(meanwhile == .some(3))

        files.fail(.write, with: ENOSPC)
        files.releaseWrite()
        #expect(turnEnded.wait(timeout: .now() + 10) == .success)
        files.heal(.write)

        #expect(store.get("k")?.version == 1)
        #expect(store.get("fresh") == nil)
        #expect(store.revision == 1)
        #expect(storage.acknowledgedRevision == 1)
        #expect(storage.gate.loss(of: 2) != nil)
        #expect(storage.gate.loss(of: 3) != nil)
        #expect(throws: WireError.self) { try Self.set(store, "k", 4, by: alice) }
        storage.abandon()

        let reopened = try open(.everysec)
        #expect(reopened.store.get("k")?.version == 1)
        #expect(reopened.store.get("fresh") == nil)
    }
}
