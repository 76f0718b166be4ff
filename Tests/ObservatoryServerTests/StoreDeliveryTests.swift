import Dispatch
import Observatory
import ObservatoryWire
import Testing

@testable import ObservatoryServer

private final class Watcher: Observer {
    let receiver = Receiver()
}

/// Observers' handlers run after the store's lock is released, one sender at a
/// time, in revision order (`DeliveryQueue`).
@Suite struct StoreDeliveryTests {
    private let author = Author(name: "alice", session: "s1")

    @Test func aSlowHandlerDoesNotHoldUpAnotherThreadsWrite() throws {
        let store = SharedStore(maxKeys: 10)
        let watcher = Watcher()
        let handlerStarted = DispatchSemaphore(value: 0)
        let otherWriteDone = DispatchSemaphore(value: 0)
        let sawOtherWrite = Locked(false)
        _ = store.observe(.key("slow"), by: watcher, subscribe: true) { _ in
            handlerStarted.signal()
            // Only a handler that runs without the store's lock lets the other write finish meanwhile.
            let finished = otherWriteDone.wait(timeout: .now() + .seconds(5)) == .success
            sawOtherWrite.withLock { $0 = finished }
        }
        let author = author
        let slowWriter = DispatchGroup()
        DispatchQueue.global().async(group: slowWriter) { _ = try? store.set("slow", to: 1, by: author) }
        #expect(handlerStarted.wait(timeout: .now() + .seconds(20)) == .success)
        try store.set("other", to: 2, by: author)
        otherWriteDone.signal()
        #expect(slowWriter.wait(timeout: .now() + .seconds(20)) == .success)
        #expect(sawOtherWrite.withLock { $0 })
        #expect(store.get("other")?.version == 2)
    }

    @Test func aHandlerThatWritesToTheStoreHasItsChangeDeliveredAfterTheOneItHandles() {
        let store = SharedStore(maxKeys: 10)
        let watcher = Watcher()
        let seen = Locked<[String]>([])
        let author = author
        _ = store.observe(.prefix(""), by: watcher, subscribe: true) { [weak store] change in
            seen.withLock { $0.append("\(change.key)@\(change.version)") }
            if change.key == "a" { _ = try? store?.set("b", to: 2, by: author) }
        }
        // On another thread: a handler that wrote under the store's lock would never return.
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            _ = try? store.set("a", to: 1, by: author)
            done.signal()
        }
        let finished = done.wait(timeout: .now() + .seconds(20)) == .success
        #expect(finished, "the write whose handler wrote again did not return")
        guard finished else { return }
        #expect(seen.withLock { $0 } == ["a@1", "b@2"])
        #expect(store.revision == 2)
    }

    @Test func twoWritersChangesReachEveryObserverInRevisionOrder() {
        let store = SharedStore(maxKeys: 10)
        let watchers = (0..<3).map { _ in Watcher() }
        let seen = (0..<3).map { _ in Locked<[Int64]>([]) }
        for (watcher, versions) in zip(watchers, seen) {
            _ = store.observe(.prefix("k"), by: watcher, subscribe: true) { change in
                versions.withLock { $0.append(change.version) }
            }
        }
        let author = author
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            for index in 0..<500 {
                let value: EncodedJSON = index % 2 == 0 ? 1 : 2
                _ = try? store.set("k\(writer)", to: value, by: author)
            }
        }
        for versions in seen {
            #expect(versions.withLock { $0 } == Array(1...1_000))
        }
        #expect(store.revision == 1_000)
    }

    @Test func anObservationStartedWhileAChangeIsOnItsWayGetsItOnlyInItsSnapshot() throws {
        let store = SharedStore(maxKeys: 10)
        let blocker = Watcher()
        let handlerStarted = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        _ = store.observe(.prefix("x"), by: blocker, subscribe: true) { change in
            guard change.key == "x" else { return }
            handlerStarted.signal()
            _ = release.wait(timeout: .now() + .seconds(20))
        }
        // Gives "k" its feed, which the change of "k" below is queued for.
        let earlier = Watcher()
        _ = store.observe(.key("k"), by: earlier, subscribe: true) { _ in }
        let author = author
        let sender = DispatchGroup()
        DispatchQueue.global().async(group: sender) { _ = try? store.set("x", to: 1, by: author) }
        #expect(handlerStarted.wait(timeout: .now() + .seconds(20)) == .success)
        // Queued behind the blocked delivery of "x": on its way when the observation starts.
        try store.set("k", to: 1, by: author)
        #expect(store.revision == 0)
        let watcher = Watcher()
        let seen = Locked<[Int64]>([])
        let snapshot = store.observe(.key("k"), by: watcher, subscribe: true) { change in
            seen.withLock { $0.append(change.version) }
        }
        release.signal()
        #expect(sender.wait(timeout: .now() + .seconds(20)) == .success)
        #expect(snapshot.values.map(\.version) == [2])
        #expect(snapshot.revision == 2)
        try store.set("k", to: 2, by: author)
        #expect(seen.withLock { $0 } == [3])
    }
}
