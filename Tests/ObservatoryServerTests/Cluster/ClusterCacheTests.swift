import Observatory
import ObservatoryWire
import Testing

@testable import ObservatoryServer

private final class CacheObserver: Observer {
    let receiver = Receiver()
    var changes: [StoreChange] = []
    /// Whether a waiter for the change's revision, added while the change was
    /// being sent, had been woken when the handler returned.
    var wokenWhileSending: [Bool] = []
}

/// A node's cache applies what etcd committed, at etcd's revisions, without etcd.
@Suite struct ClusterCacheTests {
    private let alice = Author(name: "alice", session: "sa.1")
    private let bob = Author(name: "bob", session: "sb.1")

    private func entry(_ key: String, _ value: EncodedJSON, _ version: Int64, sessionBound: Bool = false)
        -> RawValueEntry
    {
        RawValueEntry(
            key: key, value: value, version: version, author: "alice", session: "sa.1", sessionBound: sessionBound)
    }

    private func cache(_ entries: [RawValueEntry], at revision: Int64) -> SharedStore {
        SharedStore(replicating: entries, at: revision, epoch: "e", historyChanges: 100)
    }

    @Test func theCacheStartsAtTheRevisionItWasReadAt() {
        let store = cache([entry("b", 2, 9), entry("a", 1, 4)], at: 20)
        #expect(store.revision == 20)
        #expect(store.get("a")?.version == 4)
        #expect(store.list(prefix: "").map(\.key) == ["a", "b"])
    }

    @Test func changesTakeEtcdsRevisionsAndAreAnnouncedWithTheirAuthors() {
        let store = cache([entry("a", 1, 4)], at: 10)
        let observer = CacheObserver()
        _ = store.observe(.prefix(""), by: observer, subscribe: true) { observer.changes.append($0) }
        store.replicate(
            [.set(RawValueEntry(key: "a", value: 2, version: 15, author: "bob", session: "sb.1"))], through: 15)
        store.replicate([.delete(key: "a", version: 18, author: alice)], through: 21)
        #expect(store.revision == 21)
        #expect(observer.changes.map(\.version) == [15, 18])
        #expect(observer.changes.map(\.author) == ["bob", "alice"])
        #expect(observer.changes.map(\.old) == [1, 2])
    }

    @Test func aWriteWaitingForItsRevisionIsWokenOnlyAfterItsChangeReachedTheObservers() {
        let store = cache([entry("a", 1, 4)], at: 10)
        let observer = CacheObserver()
        let woken = Locked(false)
        _ = store.observe(.prefix(""), by: observer, subscribe: true) { change in
            observer.changes.append(change)
            // A write's reply starts waiting now, while its change is still on its way to observers.
            store.gate.wait(for: change.version) { woken.withLock { $0 = true } }
            observer.wokenWhileSending.append(woken.withLock { $0 })
        }
        store.replicate(
            [.set(RawValueEntry(key: "a", value: 2, version: 15, author: "bob", session: "sb.1"))], through: 15)
        #expect(observer.wokenWhileSending == [false])
        #expect(woken.withLock { $0 })
    }

    @Test func aDeletionWithoutAnAuthorIsTheOwnersAndEndsItsSessionWhenSessionBound() {
        let store = cache([entry("p", "here", 4, sessionBound: true), entry("q", 1, 5)], at: 5)
        let observer = CacheObserver()
        _ = store.observe(.prefix(""), by: observer, subscribe: true) { observer.changes.append($0) }
        store.replicate(
            [.delete(key: "p", version: 6, author: nil), .delete(key: "q", version: 6, author: nil)], through: 6)
        let events = observer.changes.map(\.event)
        #expect(
            events == [
                .delete(
                    key: "p", old: "here", version: 6, author: "alice", session: "sa.1", reason: Event.sessionEnded),
                .delete(key: "q", old: 1, version: 6, author: "alice", session: "sa.1", reason: nil),
            ])
    }

    @Test func aResetForgetsTheHistorySoOlderResumesGetASnapshot() {
        let store = cache([], at: 3)
        store.replicate([.set(entry("a", 1, 4))], through: 4)
        let observer = CacheObserver()
        let before = store.observe(.key("a"), from: ResumePoint(revision: 3, epoch: "e"), by: observer) { _ in
            false
        } receive: { _ in
        }
        #expect(before.replay?.count == 1)
        store.reset(to: [entry("a", 7, 9)], at: 12)
        let after = store.observe(.key("a"), from: ResumePoint(revision: 3, epoch: "e"), by: observer) { _ in
            false
        } receive: { _ in
        }
        #expect(after.replay == nil)
        #expect(after.values.first?.value == 7)
        #expect(after.revision == 12)
    }

    @Test func revisionsOutsideThePrefixLeaveTheResumeWindowWhole() {
        // etcd's revisions 5, 7 and 8 belong to other prefixes (or expired requestIds): the watch vouches for them.
        let store = cache([], at: 3)
        store.replicate([.set(entry("a", 1, 4)), .set(entry("a", 2, 6))], through: 6)
        store.replicate([], through: 8)
        store.replicate([.set(entry("b", 3, 9))], through: 9)
        let observer = CacheObserver()
        for (from, expected) in [(3, [4, 6, 9]), (4, [6, 9]), (5, [6, 9]), (7, [9]), (9, [])] as [(Int64, [Int64])] {
            let start = store.observe(.prefix(""), from: ResumePoint(revision: from, epoch: "e"), by: observer) { _ in
                false
            } receive: { _ in
            }
            #expect(start.replay?.map(\.version) == expected, "from \(from)")
        }
    }
}
