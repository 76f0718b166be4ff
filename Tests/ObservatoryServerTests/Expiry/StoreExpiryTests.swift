import Observatory
import ObservatoryWire
import Testing

@testable import ObservatoryServer

private final class ExpiryObserver: Observer {
    let receiver = Receiver()
    var changes: [StoreChange] = []
}

/// The store's expiring keys (docs/protocol.md, "Expiring keys"), with the
/// expiry's clock given by the test (`expireDue(now:)`).
@Suite struct StoreExpiryTests {
    let alice = Author(name: "alice", session: "s1")
    let bob = Author(name: "bob", session: "s2")

    /// Sets `key` with `ttl` and returns the wall-clock window the write happened in.
    private func set(
        _ key: String, _ value: EncodedJSON, ttl: Int64?, in store: SharedStore, by author: Author,
        sessionBound: Bool = false
    ) throws -> ClosedRange<Int64> {
        let before = KeyExpiry.wallMilliseconds()
        try store.set(key, to: value, sessionBound: sessionBound, ttl: ttl, by: author)
        return before...KeyExpiry.wallMilliseconds()
    }

    @Test func anExpiringKeyGoesAtItsDeadlineAsADeleteByItsWriterWithReasonExpired() throws {
        let store = SharedStore(maxKeys: 10)
        let observer = ExpiryObserver()
        _ = store.observe(.key("door"), by: observer, subscribe: true) { observer.changes.append($0) }
        let written = try set("door", "open", ttl: 5, in: store, by: alice)
        #expect(store.expireDue(now: written.lowerBound + 4_999).expired == 0)
        #expect(store.get("door") != nil)
        #expect(store.expireDue(now: written.upperBound + 5_000).expired == 1)
        #expect(store.get("door") == nil)
        let delete = try #require(observer.changes.last?.event)
        #expect(
            delete
                == .delete(key: "door", old: "open", version: 2, author: "alice", session: "s1", reason: "expired"))
    }

    @Test func theUpdateEventAndTheEntryCarryTheTTL() throws {
        let store = SharedStore(maxKeys: 10)
        let observer = ExpiryObserver()
        _ = store.observe(.key("k"), by: observer, subscribe: true) { observer.changes.append($0) }
        try store.set("k", to: 1, ttl: 30, by: alice)
        guard case .update(_, _, _, _, _, _, _, let ttl) = observer.changes.first?.event else {
            Issue.record("no update event: \(observer.changes)")
            return
        }
        #expect(ttl == 30)
        #expect(store.get("k")?.expiry?.seconds == 30)
    }

    @Test func aSetWithTTLRestartsTheClockWithoutAChangeEvenByAnotherAuthor() throws {
        let store = SharedStore(maxKeys: 10)
        let observer = ExpiryObserver()
        _ = store.observe(.key("k"), by: observer, subscribe: true) { observer.changes.append($0) }
        let first = try set("k", "v", ttl: 5, in: store, by: alice)
        let reply = try store.set("k", to: "v", ttl: 60, by: bob)
        #expect(reply == .set(key: "k", version: 1, changed: false))
        #expect(observer.changes.count == 1)
        #expect(store.get("k")?.author == "alice")
        #expect(store.expireDue(now: first.upperBound + 5_000).expired == 0)
        #expect(store.expireDue(now: first.upperBound + 61_000).expired == 1)
        let delete = try #require(observer.changes.last)
        #expect(delete.author == "bob")
        #expect(delete.session == "s2")
    }

    @Test func aSetWithoutTTLMakesTheKeyLastingAgain() throws {
        let store = SharedStore(maxKeys: 10)
        let written = try set("k", "v", ttl: 5, in: store, by: alice)
        #expect(try store.set("k", to: "v", by: alice).changed == true)
        #expect(store.get("k")?.expiry == nil)
        #expect(store.expireDue(now: written.upperBound + 3_600_000).expired == 0)
        #expect(store.get("k") != nil)
    }

    @Test func aDeleteEndsTheExpiry() throws {
        let store = SharedStore(maxKeys: 10)
        let written = try set("k", "v", ttl: 5, in: store, by: alice)
        try store.delete("k", by: alice)
        try store.set("k", to: "again", by: alice)
        #expect(store.expireDue(now: written.upperBound + 3_600_000).expired == 0)
        #expect(store.get("k")?.value == "again")
    }

    @Test func aSessionBoundExpiringKeyGoesWhicheverComesFirst() throws {
        let store = SharedStore(maxKeys: 10)
        let written = try set("a", "x", ttl: 5, in: store, by: alice, sessionBound: true)
        _ = try set("b", "x", ttl: 5, in: store, by: alice, sessionBound: true)
        #expect(store.expireDue(now: written.upperBound + 5_000).expired == 2)
        #expect(store.endSession("s1").deleted == 0)

        _ = try set("c", "x", ttl: 5, in: store, by: bob, sessionBound: true)
        #expect(store.endSession("s2").deleted == 1)
        #expect(store.expireDue(now: written.upperBound + 3_600_000).expired == 0)
    }

    @Test func theBookkeepingOfAnExpiringKeyCountsInTheStoresBytes() throws {
        let store = SharedStore(maxKeys: 10)
        try store.set("lasting", to: "v", by: alice)
        let lasting = store.bytes.store
        try store.set("lasting", to: "v", ttl: 5, by: alice)
        #expect(store.bytes.store >= lasting + ExpiryMachine.bytesPerKey)
        try store.delete("lasting", by: alice)
        #expect(store.bytes.store == 0)
    }

    @Test func expiryGoesInSlicesOfTheLimit() throws {
        let store = SharedStore(maxKeys: 2_000)
        let before = KeyExpiry.wallMilliseconds()
        for index in 0..<1_200 {
            try store.set("k.\(index)", to: 1, ttl: 1, by: alice)
        }
        let later = before + 60_000
        #expect(store.expireDue(now: later, limit: 500).expired == 500)
        #expect(store.expireDue(now: later, limit: 500).expired == 500)
        #expect(store.expireDue(now: later, limit: 500).expired == 200)
        #expect(store.keyCount == 0)
    }
}
