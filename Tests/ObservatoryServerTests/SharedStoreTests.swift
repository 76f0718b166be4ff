import Observatory
import ObservatoryWire
import Testing

@testable import ObservatoryServer

private final class RecordingObserver: Observer {
    let receiver = Receiver()
    var changes: [StoreChange] = []
}

@Suite struct SharedStoreTests {
    let alice = Author(name: "alice", session: "s1")
    let bob = Author(name: "bob", session: "s2")

    @Test func everyChangeTakesTheNextGlobalRevision() throws {
        let store = SharedStore(maxKeys: 10)
        #expect(try store.set("a", to: 1, by: alice) == .set(key: "a", version: 1, changed: true))
        #expect(try store.set("b", to: 2, by: alice) == .set(key: "b", version: 2, changed: true))
        #expect(try store.set("a", to: 3, by: bob) == .set(key: "a", version: 3, changed: true))
        #expect(try store.delete("b", by: bob) == .delete(key: "b", version: 4))
        #expect(store.revision == 4)
        #expect(store.get("a") == RawValueEntry(key: "a", value: 3, version: 3, author: "bob", session: "s2"))
        #expect(store.get("b") == nil)
    }

    @Test func unchangedValueTakesNoVersionAndSendsNoUpdate() throws {
        let store = SharedStore(maxKeys: 10)
        let observer = RecordingObserver()
        _ = store.observe(.key("a"), by: observer, subscribe: true) { observer.changes.append($0) }
        try store.set("a", to: ["x": 1], by: alice)
        #expect(try store.set("a", to: ["x": 1], by: bob) == .set(key: "a", version: 1, changed: false))
        #expect(store.revision == 1)
        #expect(observer.changes.count == 1)
        #expect(store.get("a")?.author == "alice")
    }

    @Test func ifVersionZeroRequiresAMissingKey() throws {
        let store = SharedStore(maxKeys: 10)
        #expect(try store.set("a", to: 1, ifVersion: 0, by: alice).version == 1)
        #expect(throws: WireError.conflict(key: "a", expected: 0, current: 1)) {
            try store.set("a", to: 2, ifVersion: 0, by: alice)
        }
    }

    @Test func ifVersionMustMatchTheCurrentVersion() throws {
        let store = SharedStore(maxKeys: 10)
        try store.set("a", to: 1, by: alice)
        try store.set("b", to: 1, by: alice)
        #expect(throws: WireError.conflict(key: "a", expected: 2, current: 1)) {
            try store.set("a", to: 2, ifVersion: 2, by: alice)
        }
        #expect(try store.set("a", to: 2, ifVersion: 1, by: alice).version == 3)
        #expect(throws: WireError.conflict(key: "a", expected: 1, current: 3)) {
            try store.delete("a", ifVersion: 1, by: alice)
        }
        #expect(try store.delete("a", ifVersion: 3, by: alice) == .delete(key: "a", version: 4))
    }

    @Test func deleteOfMissingKeyIsNotFoundOrConflictWithIfVersion() throws {
        let store = SharedStore(maxKeys: 10)
        #expect(throws: WireError.notFound(key: "nope")) { try store.delete("nope", by: alice) }
        #expect(throws: WireError.conflictDeletingMissing(key: "nope")) {
            try store.delete("nope", ifVersion: 5, by: alice)
        }
        // Also with ifVersion 0 ("must not exist"): there is nothing to delete.
        #expect(throws: WireError.conflictDeletingMissing(key: "nope")) {
            try store.delete("nope", ifVersion: 0, by: alice)
        }
        #expect(WireError.conflictDeletingMissing(key: "nope").currentVersion == 0)
        #expect(store.revision == 0)
    }

    @Test func newKeysBeyondTheLimitAreRefusedButExistingOnesChange() throws {
        let store = SharedStore(maxKeys: 2)
        try store.set("a", to: 1, by: alice)
        try store.set("b", to: 1, by: alice)
        #expect {
            try store.set("c", to: 1, by: alice)
        } throws: { error in
            (error as? WireError)?.code == .limitExceeded
        }
        #expect(try store.set("a", to: 2, by: alice).changed == true)
        try store.delete("b", by: alice)
        #expect(try store.set("c", to: 1, by: alice).changed == true)
    }

    @Test func keyObserverGetsOnlyItsKeyWithOldNewAndAuthor() throws {
        let store = SharedStore(maxKeys: 10)
        let observer = RecordingObserver()
        _ = store.observe(.key("sky"), by: observer, subscribe: true) { observer.changes.append($0) }
        try store.set("sky", to: "blue", by: alice)
        try store.set("sea", to: "green", by: alice)
        try store.set("sky", to: "red", by: bob)
        try store.delete("sky", by: alice)
        #expect(
            observer.changes.map(\.event) == [
                .update(key: "sky", old: nil, new: "blue", version: 1, author: "alice", session: "s1"),
                .update(key: "sky", old: "blue", new: "red", version: 3, author: "bob", session: "s2"),
                .delete(key: "sky", old: "red", version: 4, author: "alice", session: "s1"),
            ])
    }

    @Test func eventFrameIsTheEncodedEventWithLineFeed() throws {
        let store = SharedStore(maxKeys: 10)
        let observer = RecordingObserver()
        _ = store.observe(.key("k"), by: observer, subscribe: true) { observer.changes.append($0) }
        try store.set("k", to: 2, by: alice)
        let frame = try #require(observer.changes.first).frame
        #expect(
            String(decoding: frame, as: UTF8.self)
                == #"{"event":"update","key":"k","new":2,"version":1,"author":"alice","session":"s1"}"# + "\n")
    }

    @Test func changesAreEncodedOnlyWhenObservedAndReplayedAsLiveOnesAre() throws {
        let store = SharedStore(maxKeys: 10)
        try store.set("k", to: 1, by: alice)
        let kept = try store.withFrozenState { $0.history.changes(of: .key("k"), after: 0) }
        #expect(kept?.map(\.isEncoded) == [false])

        let live = RecordingObserver()
        _ = store.observe(.key("k"), by: live, subscribe: true) { live.changes.append($0) }
        try store.set("k", to: 2, by: bob)
        let delivered = try #require(live.changes.first)
        #expect(delivered.isEncoded)
        #expect(delivered.frame == delivered.event.encoded() + [UInt8(ascii: "\n")])

        let resuming = RecordingObserver()
        let observation = store.observe(
            .key("k"), from: ResumePoint(revision: 0, epoch: store.epoch), by: resuming, subscribe: { _ in true }
        ) { resuming.changes.append($0) }
        let replay = try #require(observation.replay)
        #expect(replay.map(\.version) == [1, 2])
        #expect(replay.allSatisfy { $0.isEncoded })
        #expect(replay.map(\.frame) == replay.map { $0.event.encoded() + [UInt8(ascii: "\n")] })
        #expect(replay[1] === delivered)
    }

    @Test func prefixSubscriptionReceivesEveryChange() throws {
        let store = SharedStore(maxKeys: 10)
        let observer = RecordingObserver()
        _ = store.observe(.prefix("a."), by: observer, subscribe: true) { observer.changes.append($0) }
        try store.set("a.x", to: 1, by: alice)
        try store.set("b.x", to: 1, by: alice)
        #expect(observer.changes.map(\.key) == ["a.x", "b.x"])
    }

    @Test func snapshotListsExistingEntriesSortedAndSkipsMissingKeys() throws {
        let store = SharedStore(maxKeys: 10)
        try store.set("a.b", to: 1, by: alice)
        try store.set("a.a", to: 2, by: bob)
        try store.set("b", to: 3, by: bob)
        let observer = RecordingObserver()
        let snapshot = store.observe(.prefix("a."), by: observer, subscribe: true) { _ in }
        #expect(snapshot.values.map(\.key) == ["a.a", "a.b"])
        #expect(snapshot.revision == store.revision)
        let missingSnapshot = store.observe(.key("missing"), by: observer, subscribe: true) { _ in }
        #expect(missingSnapshot.values.isEmpty)
        #expect(store.list(prefix: "").map(\.key) == ["a.a", "a.b", "b"])
        #expect(store.list(prefix: "a.") == [KeyVersion(key: "a.a", version: 2), KeyVersion(key: "a.b", version: 1)])
    }

    @Test func stoppingTheLastObserverOfAKeyDropsItsFeed() throws {
        let store = SharedStore(maxKeys: 10)
        let first = RecordingObserver()
        let second = RecordingObserver()
        _ = store.observe(.key("k"), by: first, subscribe: true) { first.changes.append($0) }
        _ = store.observe(.key("k"), by: second, subscribe: true) { second.changes.append($0) }
        store.stopObserving(key: "k", by: first)
        try store.set("k", to: 1, by: alice)
        #expect(first.changes.isEmpty)
        #expect(second.changes.count == 1)
        #expect(store.keyFeedCount == 1)
        store.stopObserving(key: "k", by: second)
        #expect(store.keyFeedCount == 0)
    }

    @Test func concurrentWritersProduceGaplessRevisionsInEventOrder() async throws {
        let store = SharedStore(maxKeys: 100)
        let observer = RecordingObserver()
        _ = store.observe(.prefix(""), by: observer, subscribe: true) { observer.changes.append($0) }
        let author = alice
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for round in 0..<200 {
                        _ = try? store.set("k\(writer)", to: .integer(Int64(round)), by: author)
                    }
                }
            }
        }
        #expect(observer.changes.map(\.version) == Array(1...1_600))
    }
}
