import ObservatoryWire
import Testing

@testable import ObservatoryServer

@Suite struct ObservationSetTests {
    @Test func observingTwiceIsNotNew() throws {
        var set = ObservationSet(limit: 5)
        let first = try set.add(.key("a"))
        let second = try set.add(.key("a"))
        #expect(first)
        #expect(!second)
        #expect(set.count == 1)
    }

    @Test func keyAndPrefixOverlapDeliverOnceThroughTheKeyRoute() throws {
        var set = ObservationSet(limit: 5)
        _ = try set.add(.key("a.b"))
        _ = try set.add(.prefix("a."))
        #expect(set.accepts("a.b", via: .key))
        #expect(!set.accepts("a.b", via: .prefix))
        #expect(set.accepts("a.c", via: .prefix))
        #expect(!set.accepts("b", via: .prefix))
    }

    @Test func overlappingPrefixesStillDeliverOnce() throws {
        var set = ObservationSet(limit: 5)
        _ = try set.add(.prefix("a"))
        _ = try set.add(.prefix("a.b"))
        // One prefix subscription serves both prefixes: the change arrives once.
        #expect(set.accepts("a.b.c", via: .prefix))
    }

    @Test func newTargetsBeyondTheLimitAreRefused() throws {
        var set = ObservationSet(limit: 2)
        _ = try set.add(.key("a"))
        _ = try set.add(.prefix("b"))
        let repeated = try set.add(.key("a"))
        #expect(!repeated)
        var full = set
        #expect {
            try full.add(.key("c"))
        } throws: { error in
            (error as? WireError)?.code == .limitExceeded
        }
    }

    @Test func removedKeyFallsBackToAMatchingPrefix() throws {
        var set = ObservationSet(limit: 5)
        _ = try set.add(.key("a.b"))
        _ = try set.add(.prefix("a."))
        let removed = set.remove(.key("a.b"))
        let removedAgain = set.remove(.key("a.b"))
        #expect(removed)
        #expect(!removedAgain)
        // The key's feed is left with it; the prefix route takes over.
        #expect(set.accepts("a.b", via: .prefix))
    }
}

@Suite struct ObservationSetSlowPolicyTests {
    @Test func withoutACloseObservationEveryKeyMayCoalesce() throws {
        var set = ObservationSet(limit: 5)
        _ = try set.add(.key("a"))
        _ = try set.add(.prefix("b."), slow: .coalesce)
        #expect(set.mayCoalesce("a"))
        #expect(set.mayCoalesce("b.c"))
    }

    @Test func aCloseKeyOrACoveringClosePrefixWins() throws {
        var set = ObservationSet(limit: 5)
        _ = try set.add(.key("a.b"))
        _ = try set.add(.prefix("a."), slow: .close)
        _ = try set.add(.key("x"), slow: .close)
        // The key's own observation coalesces, the prefix covering it closes: close wins.
        #expect(!set.mayCoalesce("a.b"))
        #expect(!set.mayCoalesce("a.c"))
        #expect(!set.mayCoalesce("x"))
        #expect(set.mayCoalesce("b"))
        #expect(set.mayCoalesce("xy"))
    }

    @Test func aCloseKeyAloneIsStrictAndItsUnobserveLoosensIt() throws {
        var set = ObservationSet(limit: 5)
        _ = try set.add(.key("a"), slow: .close)
        #expect(set.hasClosingTargets)
        #expect(!set.mayCoalesce("a"))
        _ = set.remove(.key("a"))
        #expect(!set.hasClosingTargets)
    }

    @Test func observingAgainWithCloseMakesATargetStrictAndOnlyUnobserveLoosensIt() throws {
        var set = ObservationSet(limit: 5)
        _ = try set.add(.prefix("a."))
        #expect(set.mayCoalesce("a.b"))
        let isNew = try set.add(.prefix("a."), slow: .close)
        #expect(!isNew)
        #expect(!set.mayCoalesce("a.b"))
        _ = try set.add(.prefix("a."), slow: .coalesce)
        #expect(!set.mayCoalesce("a.b"))
        _ = set.remove(.prefix("a."))
        _ = try set.add(.prefix("a."))
        #expect(set.mayCoalesce("a.b"))
    }
}
