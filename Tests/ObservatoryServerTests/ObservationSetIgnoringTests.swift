import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// An observation that starts while the store's sender still delivers older
/// changes ignores the ones its snapshot holds.
@Suite struct ObservationSetIgnoringTests {
    private let alice = Author(name: "alice", session: "s1")

    private func change(_ key: String, _ version: Int64) -> StoreChange {
        StoreChange.update(key: key, old: nil, new: "v", version: version, by: alice)
    }

    @Test func aNewKeyIgnoresEventsItsSnapshotHolds() throws {
        var set = ObservationSet(limit: 5)
        _ = try set.add(.key("a"), ignoringThrough: 5)
        var isSent = set.acceptsEvent(change("a", 4), via: .key)
        #expect(!isSent)
        isSent = set.acceptsEvent(change("a", 5), via: .key)
        #expect(!isSent)
        isSent = set.acceptsEvent(change("a", 6), via: .key)
        #expect(isSent)
    }

    @Test func anAddedPrefixIgnoresOnlyTheKeysItCovers() throws {
        var set = ObservationSet(limit: 5)
        _ = try set.add(.prefix("a."))
        _ = try set.add(.prefix("b."), ignoringThrough: 5)
        var isSent = set.acceptsEvent(change("a.x", 4), via: .prefix)
        #expect(isSent)
        isSent = set.acceptsEvent(change("b.x", 5), via: .prefix)
        #expect(!isSent)
        isSent = set.acceptsEvent(change("b.x", 6), via: .prefix)
        #expect(isSent)
    }

    @Test func observingAKeyAgainIgnoresWhatItsNewSnapshotHolds() throws {
        var set = ObservationSet(limit: 5)
        _ = try set.add(.key("a"))
        var isSent = set.acceptsEvent(change("a", 2), via: .key)
        #expect(isSent)
        _ = try set.add(.key("a"), ignoringThrough: 4)
        isSent = set.acceptsEvent(change("a", 3), via: .key)
        #expect(!isSent)
        isSent = set.acceptsEvent(change("a", 5), via: .key)
        #expect(isSent)
    }

    @Test func aLaterEventEndsIgnoring() throws {
        var set = ObservationSet(limit: 5)
        _ = try set.add(.prefix("a."), ignoringThrough: 5)
        var isSent = set.acceptsEvent(change("a.x", 6), via: .prefix)
        #expect(isSent)
        // Nothing older follows a later event: the sender delivers in revision order.
        isSent = set.acceptsEvent(change("a.y", 5), via: .prefix)
        #expect(isSent)
    }

    @Test func unobservingForgetsWhatWasIgnored() throws {
        var set = ObservationSet(limit: 5)
        _ = try set.add(.key("a"), ignoringThrough: 5)
        _ = set.remove(.key("a"))
        _ = try set.add(.key("a"))
        let isSent = set.acceptsEvent(change("a", 3), via: .key)
        #expect(isSent)
    }

    @Test func replayedChangesAreNotIgnored() throws {
        var set = ObservationSet(limit: 5)
        _ = try set.add(.key("a"), ignoringThrough: 5)
        #expect(set.accepts("a", via: .key))
    }
}
