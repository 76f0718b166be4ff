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
        #expect(budget.reserve("a", in: store) { (2, 0) })
        #expect(budget.reserve("b", in: store) { (2, 0) })
        #expect(!budget.reserve("c", in: store) { (2, 0) }, "2 keys and 2 creates in flight fill 4")
        budget.release("a")
        #expect(budget.reserve("c", in: store) { (2, 0) })
    }

    @Test func aCreateTheCacheAppliedIsCountedOnce() {
        let budget = ClusterKeyBudget(maxKeys: 4)
        let store = cache(keys: 2)
        #expect(budget.reserve("a", in: store) { (2, 0) })
        budget.committed("a", at: 3)
        // Applied by the watch before its reservation was released.
        store.replicate(
            [.set(RawValueEntry(key: "a", value: 1, version: 3, author: "alice", session: "s1"))], through: 3)
        #expect(budget.reserve("b", in: store) { (3, 3) }, "etcd's count at 3 holds a: counted once")
    }

    @Test func aCreateCommittedWhileEtcdCountsIsStillCounted() {
        let budget = ClusterKeyBudget(maxKeys: 4)
        let store = cache(keys: 2)
        /// Commits `key` at `revision`, applies it to the cache and answers its write.
        func land(_ key: String, at revision: Int64) {
            budget.committed(key, at: revision)
            store.replicate(
                [.set(RawValueEntry(key: key, value: 1, version: revision, author: "a", session: "s1"))],
                through: revision)
            budget.release(key)
        }
        #expect(budget.reserve("a", in: store) { (2, 0) }, "far from the limit")
        // Near it: while etcd counts (before a committed), a lands.
        #expect(
            budget.reserve("b", in: store) {
                land("a", at: 3)
                return (2, 2)
            }, "2, a and b: 4 of 4")
        // While etcd counts (before b committed), b lands: b still takes its room.
        #expect(
            !budget.reserve("c", in: store) {
                land("b", at: 4)
                return (3, 3)
            }, "3 and b: 4 of 4")
        // A count asked after both committed holds them.
        #expect(!budget.reserve("c", in: store) { (4, 4) })
        #expect(budget.reserve("c", in: store) { (3, 5) }, "another node deleted one")
    }

    @Test func nearTheLimitEtcdsCountDecidesAndFarFromItTheCacheAlone() {
        let budget = ClusterKeyBudget(maxKeys: 4)
        var asked: [Int] = []
        func etcdHolds(_ keys: Int) -> (count: Int, revision: Int64) {
            asked.append(keys)
            return (keys, 0)
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
