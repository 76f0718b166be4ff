import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// `StoreState` plans a write without changing anything and returns the records
/// storage must hold; only `apply` makes it.
@Suite struct StoreStateTests {
    let alice = Author(name: "alice", session: "s1")

    @Test func planningAWriteChangesNothing() throws {
        let state = StoreState(maxKeys: 10)
        let planned = try state.planSet("a", to: 1, ifVersion: nil, by: alice)
        #expect(planned.payload == .set(key: "a", version: 1, changed: true))
        #expect(state.revision == 0)
        #expect(state.entry("a") == nil)
    }

    @Test func applyingAPlannedWriteMakesIt() throws {
        var state = StoreState(maxKeys: 10)
        state.apply(try state.planSet("a", to: 1, ifVersion: nil, by: alice))
        #expect(state.revision == 1)
        #expect(state.entry("a")?.value == 1)
        state.apply(try state.planDelete("a", ifVersion: 1, by: alice))
        #expect(state.revision == 2)
        #expect(state.entry("a") == nil)
    }

    @Test func aPlannedChangeCarriesItsRecordThenItsRequestId() throws {
        let state = StoreState(maxKeys: 10)
        let planned = try state.planSet("a", to: 1, ifVersion: nil, requestId: "r1", by: alice, now: 5)
        let entry = RawValueEntry(key: "a", value: 1, version: 1, author: "alice", session: "s1")
        let applied = AppliedWrite(requestId: "r1", appliedAt: 5, reply: .set(key: "a", version: 1, changed: true))
        let change = try #require(planned.change)
        #expect(planned.records == [.changeTime(change.at), .set(entry), .appliedWrite(applied)])
    }

    @Test func anUnchangedWriteWithARequestIdPersistsOnlyTheId() throws {
        var state = StoreState(maxKeys: 10)
        state.apply(try state.planSet("a", to: 1, ifVersion: nil, by: alice))
        let planned = try state.planSet("a", to: 1, ifVersion: nil, requestId: "r1", by: alice, now: 5)
        #expect(planned.change == nil)
        #expect(planned.records.count == 1)
        state.apply(planned)
        #expect(state.revision == 1)
        #expect(state.appliedWrites.lookup("r1", now: 5) != nil)
    }

    @Test func aDuplicateNeedsNoStorageAndChangesNothing() throws {
        var state = StoreState(maxKeys: 10)
        state.apply(try state.planSet("a", to: 1, ifVersion: nil, requestId: "r1", by: alice, now: 5))
        let duplicate = try state.planSet("a", to: 2, ifVersion: nil, requestId: "r1", by: alice, now: 6)
        #expect(!duplicate.needsPersisting)
        #expect(duplicate.payload == .set(key: "a", version: 1, changed: true, duplicate: true))
        state.apply(duplicate)
        #expect(state.entry("a")?.value == 1)
    }

    @Test func aSessionEndPlansOneDeleteAfterAnotherInKeyOrder() throws {
        var state = StoreState(maxKeys: 10)
        state.apply(try state.planSet("b", to: 1, ifVersion: nil, sessionBound: true, by: alice))
        state.apply(try state.planSet("a", to: 1, ifVersion: nil, sessionBound: true, by: alice))
        let planned = state.planSessionEnd("s1")
        #expect(planned.map(\.payload) == [.delete(key: "a", version: 3), .delete(key: "b", version: 4)])
        #expect(state.revision == 2)
        for write in planned { state.apply(write) }
        #expect(state.revision == 4)
        #expect(state.sessionsWithSessionBoundKeys.isEmpty)
    }
}
