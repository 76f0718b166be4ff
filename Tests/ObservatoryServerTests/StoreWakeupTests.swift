import Dispatch
import Observatory
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// The revision gate's waiters that a write wakes run once the store released
/// its lock (`SharedStore.withStoreLock`): while a waiter runs, another thread
/// can read the store.
@Suite(.timeLimit(.minutes(1))) struct StoreWakeupTests: StorageSuite {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test func aWaiterWokenByAnAppendedChangeRunsAfterTheStoreReleasedItsLock() throws {
        let context = try open(.everysec)
        let store = context.store
        let seen = Locked<Int64??>(nil)
        store.gate.wait(for: 1) { seen.withLock { $0 = readFromAnotherThread(store) } }
        let alice = alice
        DispatchQueue.global().async { _ = try? store.set("k", to: 1, by: alice) }
        try waitUntil("the waiter ran", timeout: .seconds(10)) { seen.withLock { $0 != nil } }
        #expect(seen.withLock { $0 } == .some(1))
    }

    @Test func aWaiterWokenByTheEndOfATurnRunsAfterTheStoreReleasedItsLock() throws {
        let context = try open(.everysec)
        let store = context.store
        let endOfTurn = try #require(store.batchWritesPerTurn())
        let write = Write.set(key: "k", value: .integer(1), ifVersion: nil, sessionBound: false, requestId: nil)
        _ = try store.apply(write, by: alice)
        let seen = Locked<Int64??>(nil)
        store.gate.wait(for: 1) { seen.withLock { $0 = readFromAnotherThread(store) } }
        DispatchQueue.global().async { endOfTurn() }
        try waitUntil("the waiter ran", timeout: .seconds(10)) { seen.withLock { $0 != nil } }
        #expect(seen.withLock { $0 } == .some(1))
    }
}

/// The version of "k" as another thread reads it within two seconds, or `nil`
/// when that thread could not take the store's lock meanwhile.
private func readFromAnotherThread(_ store: SharedStore) -> Int64? {
    let version = Locked<Int64?>(nil)
    let read = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        let entry = store.get("k")
        version.withLock { $0 = entry?.version }
        read.signal()
    }
    guard read.wait(timeout: .now() + .seconds(2)) == .success else { return nil }
    return version.withLock { $0 }
}
