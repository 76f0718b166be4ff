import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// How a node decides `limits.maxKeys` (`ClusterKeyBudget`), without etcd: the
/// count of keys in etcd is what each test says it is.
@Suite struct ClusterKeyBudgetTests {
    private func cache(keys: Int) -> SharedStore {
        let entries = (0..<keys).map {
            RawValueEntry(key: "held\($0)", value: 1, version: Int64($0 + 1), author: "alice", session: "s1")
        }
        return SharedStore(replicating: entries, at: Int64(keys), epoch: "e", historyChanges: 10)
    }

    @Test func createsInFlightTakeRoomUntilReleased() {
        let budget = ClusterKeyBudget(maxKeys: 4)
        let store = cache(keys: 2)
        #expect(budget.reserve("a", in: store) { 2 })
        #expect(budget.reserve("b", in: store) { 2 })
        #expect(!budget.reserve("c", in: store) { 2 }, "2 keys and 2 creates in flight fill 4")
        budget.release("a")
        #expect(budget.reserve("c", in: store) { 2 })
    }

    @Test func aCreateTheCacheAppliedIsCountedOnce() {
        let budget = ClusterKeyBudget(maxKeys: 4)
        let store = cache(keys: 2)
        #expect(budget.reserve("a", in: store) { 2 })
        // Applied by the watch before its reservation was released.
        store.replicate(
            [.set(RawValueEntry(key: "a", value: 1, version: 3, author: "alice", session: "s1"))], through: 3)
        #expect(budget.reserve("b", in: store) { 3 })
    }

    @Test func nearTheLimitEtcdsCountDecidesAndFarFromItTheCacheAlone() {
        let budget = ClusterKeyBudget(maxKeys: 4)
        var asked: [Int] = []
        func etcdHolds(_ keys: Int) -> Int {
            asked.append(keys)
            return keys
        }
        // Another node deleted two keys this node's cache still holds.
        #expect(budget.reserve("late", in: cache(keys: 4)) { etcdHolds(2) })
        // Another node filled the prefix, and this node has not seen it yet: etcd says so.
        #expect(!budget.reserve("full", in: cache(keys: 3)) { etcdHolds(4) })
        #expect(budget.reserve("room", in: cache(keys: 0)) { etcdHolds(4) }, "far from the limit: the cache decides")
        #expect(asked == [2, 4])
    }

    @Test func theRefusalNamesTheLimit() {
        let error = ClusterKeyBudget(maxKeys: 3).exceeded
        #expect(error.code == .limitExceeded)
        #expect(error.message.contains("limits.maxKeys") && error.message.contains("3"))
    }
}
