import ObservatoryEtcd
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Expiring keys in cluster mode, their pure parts: the lease an expiring key
/// goes on, the envelope that keeps its expiry, how the watch's events of it
/// map to changes, and how the cache announces them.
@Suite struct ClusterExpiryTests {
    private let layout = ClusterKeyLayout(prefix: "obs/")
    private let alice = Author(name: "alice", session: "sa.1")
    private let bob = Author(name: "bob", session: "sb.2")

    // MARK: Lease buckets

    @Test func aLeaseLastsTheMostWholeSecondsEndingWithin1200MillisecondsAfterTheDeadline() {
        #expect(ExpiryLeaseBuckets.ttlSeconds(until: 10_000, now: 0) == 11)
        #expect(ExpiryLeaseBuckets.ttlSeconds(until: 10_001, now: 0) == 11)
        #expect(ExpiryLeaseBuckets.ttlSeconds(until: 10_000, now: 8_700) == 2)
        #expect(ExpiryLeaseBuckets.ttlSeconds(until: 10_000, now: 8_900) == 2, "never ending before the deadline")
        #expect(ExpiryLeaseBuckets.ttlSeconds(until: 10_000, now: 10_500) == 1)
    }

    @Test func keysExpiringUpTo1200MillisecondsBeforeALeaseEndsShareIt() {
        var buckets = ExpiryLeaseBuckets()
        // Granted at 1.3 s for 5 s: it ends at 6.3 s.
        buckets.remember(7, grantedAt: 1_300, ttlSeconds: 5)
        #expect(buckets.lease(for: 6_300) == 7)
        #expect(buckets.lease(for: 5_400) == 7)
        #expect(buckets.lease(for: 5_100) == 7)
        #expect(buckets.count == 1)
    }

    @Test func aKeyNeverSharesALeaseThatEndsBeforeItsDeadlineOrMoreThan1200MillisecondsAfter() {
        var buckets = ExpiryLeaseBuckets()
        buckets.remember(7, grantedAt: 1_300, ttlSeconds: 5)
        #expect(buckets.lease(for: 6_301) == nil, "it would be deleted early")
        #expect(buckets.lease(for: 5_099) == nil, "it would be deleted too late")
        #expect(buckets.lease(for: 60_000) == nil)
    }

    @Test func keysSetOneAfterAnotherForASecondShareTheLeaseOfTheFirst() {
        var buckets = ExpiryLeaseBuckets()
        var granted = 0
        for now in stride(from: Int64(10_000), to: 11_000, by: 10) {
            let deadline = now + 30_000
            if buckets.lease(for: deadline) == nil {
                granted += 1
                let ttl = ExpiryLeaseBuckets.ttlSeconds(until: deadline, now: now)
                buckets.remember(Int64(granted), grantedAt: now, ttlSeconds: ttl)
            }
        }
        #expect(granted == 1)
    }

    @Test func leasesThatEndedAreForgottenAsMoreAreGranted() {
        var buckets = ExpiryLeaseBuckets()
        for second in 0..<64 { buckets.remember(Int64(second), grantedAt: 0, ttlSeconds: Int64(second + 1)) }
        #expect(buckets.count == 64)
        buckets.remember(100, grantedAt: 32_500, ttlSeconds: 30)
        #expect(buckets.count == 32, "the 31 that ended by 32.5 s went, one came")
        #expect(buckets.lease(for: 33_000) == 32)
    }

    // MARK: Envelope

    @Test func anEnvelopeKeepsTheExpiryAndTheVersionARestartKept() throws {
        let expiry = KeyExpiry(seconds: 30, deadline: 1_700_000_030_000, author: "bob", session: "sb.2")
        let envelope = ClusterEnvelope(value: "on", author: alice, expiry: expiry, version: 12)
        let decoded = try #require(ClusterEnvelope.decode(envelope.encoded()))
        #expect(decoded == envelope)
        let entry = try #require(decoded.entry(key: "lamp", version: 40))
        #expect(entry.version == 12, "a restart keeps the key's version")
        #expect(entry.expiry == expiry)
        let marker = ClusterEnvelope(value: nil, author: bob, expired: true)
        #expect(ClusterEnvelope.decode(marker.encoded())?.expired == true)
    }

    // MARK: Watch events

    @Test func aPutThatKeepsAnEarlierVersionIsARestartNotASet() {
        let expiry = KeyExpiry(seconds: 3, deadline: 9_000, author: "bob", session: "sb.2")
        let changes = ClusterEventMapper.changes(
            from: [
                .put("obs/k/lamp", ClusterEnvelope(value: 1, author: alice, expiry: expiry, version: 5), revision: 8)
            ],
            layout: layout)
        #expect(changes == [.restart(key: "lamp", revision: 8, expiry: expiry)])
    }

    @Test func aDeleteWhoseMarkerSaysExpiredIsAnExpiry() {
        let changes = ClusterEventMapper.changes(
            from: [
                .put("obs/d/lamp", ClusterEnvelope(value: nil, author: bob, expired: true), revision: 9),
                .delete("obs/k/lamp", revision: 9),
            ], layout: layout)
        #expect(changes == [.expire(key: "lamp", version: 9)])
    }

    // MARK: The cache

    @Test func aLeaseDeleteOfAnExpiringKeyIsAnExpiredDeleteByTheWriteThatSetTheExpiry() throws {
        let expiry = KeyExpiry(seconds: 1, deadline: 2_000, author: "bob", session: "sb.2")
        var state = StoreState.replica(of: [entry(version: 4, expiry: expiry)], at: 4)
        let planned = try #require(state.planReplicated(.delete(key: "lamp", version: 6, author: nil)))
        let event = text(try #require(state.apply(planned).change))
        #expect(event.contains(#""reason":"expired""#), "\(event)")
        #expect(event.contains(#""author":"bob""#) && event.contains(#""session":"sb.2""#), "\(event)")
    }

    @Test func aSessionBoundExpiringKeyDeletedWithItsLeaseWentWithItsSession() throws {
        let expiry = KeyExpiry(seconds: 600, deadline: 600_000, author: "alice", session: "sa.1")
        var state = StoreState.replica(of: [entry(version: 4, expiry: expiry, sessionBound: true)], at: 4)
        let planned = try #require(state.planReplicated(.delete(key: "lamp", version: 6, author: nil)))
        let event = text(try #require(state.apply(planned).change))
        #expect(event.contains(#""reason":"session_ended""#), "\(event)")
        let expired = StoreState.replica(of: [entry(version: 4, expiry: expiry, sessionBound: true)], at: 4)
        let expiredEvent = try #require(expired.planReplicated(.expire(key: "lamp", version: 6))?.change)
        #expect(text(expiredEvent).contains(#""reason":"expired""#))
    }

    @Test func aRestartChangesOnlyTheExpiryAndAnnouncesNothing() throws {
        let first = KeyExpiry(seconds: 1, deadline: 2_000, author: "alice", session: "sa.1")
        let second = KeyExpiry(seconds: 3, deadline: 4_500, author: "bob", session: "sb.2")
        var state = StoreState.replica(of: [entry(version: 4, expiry: first)], at: 4)
        let planned = try #require(state.planReplicated(.restart(key: "lamp", revision: 7, expiry: second)))
        #expect(state.apply(planned).change == nil)
        #expect(state.entry("lamp")?.version == 4)
        #expect(state.entry("lamp")?.author == "alice")
        #expect(state.entry("lamp")?.expiry == second)
    }

    // MARK: Write plans

    @Test func anEqualValueWithTTLIsPutAgainKeepingItsVersionAndComparedOnItsModRevision() {
        let expiry = KeyExpiry(seconds: 1, deadline: 2_000, author: "alice", session: "sa.1")
        let plan = ClusterWritePlan(
            write: .set(key: "lamp", value: 1, ifVersion: 4, sessionBound: false, requestId: nil, ttl: 3),
            author: bob, current: entry(version: 4, expiry: expiry), currentRevision: 9, layout: layout,
            expiryLease: 77, now: 1_000)
        #expect(plan.restartsExpiry)
        #expect(plan.outcome == .answer(.set(key: "lamp", version: 4, changed: false)))
        #expect(plan.transaction.compares == [.unchanged(Array("obs/k/lamp".utf8), since: 9)])
        let restarted = ClusterEnvelope(
            value: 1, author: alice, expiry: KeyExpiry(seconds: 3, after: 1_000, by: bob), version: 4)
        #expect(
            plan.transaction.success == [.put(key: Array("obs/k/lamp".utf8), value: restarted.encoded(), lease: 77)])
    }

    @Test func anEqualValueWithoutTTLOnAnExpiringKeyIsAChange() {
        let expiry = KeyExpiry(seconds: 1, deadline: 2_000, author: "alice", session: "sa.1")
        let plan = ClusterWritePlan(
            write: .set(key: "lamp", value: 1, ifVersion: nil, sessionBound: false, requestId: nil, ttl: nil),
            author: bob, current: entry(version: 4, expiry: expiry), layout: layout, expiryLease: 77, now: 1_000)
        #expect(!plan.restartsExpiry)
        #expect(plan.outcome == .change)
    }

    private func text(_ change: StoreChange) -> String {
        String(decoding: change.encoded().frame, as: UTF8.self)
    }

    private func entry(version: Int64, expiry: KeyExpiry?, sessionBound: Bool = false) -> RawValueEntry {
        RawValueEntry(
            key: "lamp", value: 1, version: version, author: "alice", session: "sa.1", sessionBound: sessionBound,
            expiry: expiry)
    }
}
