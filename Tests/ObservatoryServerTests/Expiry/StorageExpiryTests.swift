import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Expiring keys in the data directory: kept across restarts and compactions,
/// restarted clocks too, and deleted with their event when found expired.
@Suite(.timeLimit(.minutes(1))) struct StorageExpiryTests: StorageSuite {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test(arguments: [false, true])
    func anExpiryAndARestartedClockSurviveARestart(compacted: Bool) throws {
        let first = try open(.always)
        try first.store.set("short", to: 1, ttl: 5, by: alice)
        try first.store.set("restarted", to: 2, ttl: 5, by: alice)
        try first.store.set("restarted", to: 2, ttl: 3_600, by: bob)
        try first.store.set("bound", to: 3, sessionBound: true, ttl: 60, by: alice)
        let before = try #require(first.store.get("restarted")?.expiry)
        if compacted { try storage(of: first).compactNow() }
        try storage(of: first).close()

        let second = try open(.always)
        #expect(second.store.get("short")?.expiry?.seconds == 5)
        let after = try #require(second.store.get("restarted")?.expiry)
        #expect(after == before)
        #expect(after.author == "bob" && after.seconds == 3_600)
        // The session-bound key went with its session at the restart, expiring or not.
        #expect(second.store.get("bound") == nil)
        let due = second.store.expireDue(now: before.deadline - 3_000_000)
        #expect(due.expired == 1)
        #expect(second.store.get("short") == nil)
        #expect(second.store.get("restarted") != nil)
    }

    @Test func aBatchsExpiriesAndRestartedClocksSurviveARestart() throws {
        let first = try open(.always)
        try first.store.set("restarted", to: 2, ttl: 5, by: alice)
        _ = try first.store.batch(
            [.set(key: "new", value: 1, ttl: 60), .set(key: "restarted", value: 2, ttl: 3_600)], requestId: nil,
            by: bob)
        let restarted = try #require(first.store.get("restarted")?.expiry)
        #expect(restarted.author == "bob" && restarted.seconds == 3_600)
        let revision = first.store.revision
        try storage(of: first).close()

        let second = try open(.always)
        #expect(second.store.revision == revision)
        #expect(second.store.get("new")?.expiry?.seconds == 60)
        #expect(second.store.get("restarted")?.expiry == restarted)
        #expect(second.store.get("restarted")?.version == 1, "a restarted clock keeps the version")
    }

    @Test func anExpiredDeleteIsKeptAsExpiredAcrossARestart() throws {
        let first = try open(.always)
        try first.store.set("k", to: 1, ttl: 1, by: alice)
        let deadline = try #require(first.store.get("k")?.expiry?.deadline)
        #expect(first.store.expireDue(now: deadline).expired == 1)
        let epoch = first.store.epoch
        try storage(of: first).close()

        let second = try open(.always)
        #expect(second.store.epoch == epoch)
        #expect(second.store.get("k") == nil)
        #expect(second.store.revision == 2)
        #expect(second.store.expireDue(now: deadline + 60_000).expired == 0)
    }
}
