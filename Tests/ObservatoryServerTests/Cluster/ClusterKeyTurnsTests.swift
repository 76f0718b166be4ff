import Dispatch
import Observatory
import ObservatoryTestSupport
import Testing

@testable import ObservatoryServer

/// A node's writes of one key take turns in arrival order; other keys' writes do not wait.
struct ClusterKeyTurnsTests {
    @Test func aSecondWriteOfAKeyStartsOnlyAfterTheFirstEnded() throws {
        let turns = ClusterKeyTurns()
        let key = StoreKey("hot")
        let steps = Locked<[String]>([])
        let firstMayEnd = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        DispatchQueue.global().async(group: done) {
            turns.run(key) {
                steps.withLock { $0.append("first started") }
                _ = firstMayEnd.wait(timeout: .now() + 20)
                steps.withLock { $0.append("first ended") }
            }
        }
        try waitUntil("the first write runs") { steps.withLock { $0 } == ["first started"] }
        DispatchQueue.global().async(group: done) {
            turns.run(key) { steps.withLock { $0.append("second started") } }
        }
        try waitUntil("the second write waits") { turns.writers(of: key) == 2 }
        firstMayEnd.signal()
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(steps.withLock { $0 } == ["first started", "first ended", "second started"])
        #expect(turns.writers(of: key) == 0, "a key nobody writes leaves nothing behind")
    }

    @Test func writesOfDifferentKeysRunTogether() {
        let turns = ClusterKeyTurns()
        let otherRan = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        let waited = Locked<[DispatchTimeoutResult]>([])
        DispatchQueue.global().async(group: done) {
            // Holds key "a" until a write of "b" has run: it could not if "b" waited for "a".
            turns.run(StoreKey("a")) {
                let result = otherRan.wait(timeout: .now() + 20)
                waited.withLock { $0.append(result) }
            }
        }
        DispatchQueue.global().async(group: done) {
            turns.run(StoreKey("b")) { _ = otherRan.signal() }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(waited.withLock { $0 } == [.success])
    }
}
