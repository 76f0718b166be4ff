import Testing

@testable import ObservatoryServer

/// The rules of write grouping: writes go at once while a slot is free, wait
/// and go together otherwise; one key's writes take turns across retries; a
/// group stays within its size.
struct ClusterWriteGroupsTests {
    private func write(_ id: Int, _ keys: String..., bytes: Int = 100) -> ClusterWriteGroups.Submission {
        ClusterWriteGroups.Submission(id: id, keys: keys, bytes: bytes)
    }

    @Test func aWriteGoesAloneAtOnceWhileASlotIsFree() {
        var groups = ClusterWriteGroups(maximumGroups: 2)
        #expect(groups.submit(write(1, "a")) == [.send(slot: 0, writes: [1])])
        #expect(groups.submit(write(2, "b")) == [.send(slot: 1, writes: [2])])
    }

    @Test func writesArrivingWhileEverySlotIsBusyGoTogetherWhenOneFrees() {
        var groups = ClusterWriteGroups(maximumGroups: 1, maximumWrites: 64)
        #expect(groups.submit(write(1, "a")) == [.send(slot: 0, writes: [1])])
        #expect(groups.submit(write(2, "b")).isEmpty)
        #expect(groups.submit(write(3, "c")).isEmpty)
        #expect(groups.waitingCount == 2)
        #expect(groups.answered(slot: 0) == [.send(slot: 0, writes: [2, 3])])
        #expect(groups.waitingCount == 0)
    }

    @Test func aKeysSecondWriteWaitsUntilTheFirstIsDecidedEvenWithASlotFree() {
        var groups = ClusterWriteGroups(maximumGroups: 2)
        _ = groups.submit(write(1, "hot"))
        #expect(groups.submit(write(2, "hot")).isEmpty)
        #expect(groups.answered(slot: 0).isEmpty, "the first write still holds the turn while it decides")
        #expect(groups.finished(1) == [.send(slot: 0, writes: [2])])
    }

    @Test func aRetryKeepsItsTurnAheadOfLaterWritesOfTheKey() {
        var groups = ClusterWriteGroups(maximumGroups: 1)
        _ = groups.submit(write(1, "hot"))
        _ = groups.submit(write(2, "hot"))
        _ = groups.answered(slot: 0)
        // Write 1's compare failed: planned again, it goes before write 2.
        #expect(groups.submit(write(1, "hot")) == [.send(slot: 0, writes: [1])])
        _ = groups.answered(slot: 0)
        #expect(groups.finished(1) == [.send(slot: 0, writes: [2])])
    }

    @Test func aWriteBlockedByATurnDoesNotHoldBackOtherKeys() {
        var groups = ClusterWriteGroups(maximumGroups: 1, maximumWrites: 64)
        _ = groups.submit(write(1, "hot"))
        _ = groups.submit(write(2, "hot"))
        _ = groups.submit(write(3, "cold"))
        #expect(groups.answered(slot: 0) == [.send(slot: 0, writes: [3])])
    }

    @Test func writesSharingARequestIdNeverGoInOneGroup() {
        var groups = ClusterWriteGroups(maximumGroups: 1, maximumWrites: 64)
        _ = groups.submit(write(1, "x"))
        _ = groups.submit(write(2, "key:a", "requestId:r"))
        _ = groups.submit(write(3, "key:b", "requestId:r"))
        #expect(groups.answered(slot: 0) == [.send(slot: 0, writes: [2])])
    }

    @Test func byDefaultEachWriteGoesAloneSoEveryChangeHasARevisionOfItsOwn() {
        var groups = ClusterWriteGroups()
        let actions = (1...3).flatMap { groups.submit(write($0, "k\($0)")) }
        #expect(actions == [.send(slot: 0, writes: [1]), .send(slot: 1, writes: [2]), .send(slot: 2, writes: [3])])
    }

    @Test func aGroupHoldsAtMostItsWritesAndBytes() {
        var groups = ClusterWriteGroups(maximumGroups: 1, maximumWrites: 2, maximumBytes: 250)
        _ = groups.submit(write(1, "x"))
        for id in 2...4 { _ = groups.submit(write(id, "k\(id)")) }
        #expect(groups.answered(slot: 0) == [.send(slot: 0, writes: [2, 3])])
        _ = groups.submit(write(5, "big", bytes: 200))
        #expect(groups.answered(slot: 0) == [.send(slot: 0, writes: [4])], "100 + 200 bytes is over the bound")
        #expect(groups.answered(slot: 0) == [.send(slot: 0, writes: [5])])
        _ = groups.submit(write(6, "huge", bytes: 1_000))
        #expect(groups.answered(slot: 0) == [.send(slot: 0, writes: [6])], "a write over the bound goes alone")
    }
}
