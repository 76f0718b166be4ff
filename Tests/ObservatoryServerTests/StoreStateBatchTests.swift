import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// `StoreState`'s rules for a `batch`: all or nothing, one revision, results in order.
@Suite struct StoreStateBatchTests {
    let alice = Author(name: "alice", session: "s1")

    /// A state holding `a` (version 1) and `b` (version 2).
    private func state(maxKeys: Int = 10) throws -> StoreState {
        var state = StoreState(maxKeys: maxKeys)
        state.apply(try state.planSet("a", to: 1, ifVersion: nil, by: alice))
        state.apply(try state.planSet("b", to: 2, ifVersion: nil, by: alice))
        return state
    }

    @Test func everyChangeOfABatchTakesTheSameNextRevision() throws {
        var state = try state()
        let planned = try state.planBatch(
            [.set(key: "c", value: 3), .delete(key: "a"), .set(key: "b", value: 20)], requestId: nil, by: alice,
            now: 0)
        let (changes, payload) = state.apply(planned)
        #expect(changes.map(\.version) == [3, 3, 3])
        #expect(changes.map(\.key) == ["c", "a", "b"], "in the order of the operations")
        #expect(
            payload
                == .batch(
                    revision: 3,
                    results: [
                        BatchResult(key: "c", version: 3, changed: true), BatchResult(key: "a", version: 3),
                        BatchResult(key: "b", version: 3, changed: true),
                    ]))
        #expect(state.revision == 3)
        #expect(state.entry("a") == nil && state.entry("c")?.version == 3 && state.entry("b")?.value == 20)
    }

    @Test func theFirstFailingOperationFailsTheBatchWithItsIndexAndPlansNothing() throws {
        let state = try state()
        let operations: [BatchOperation<EncodedJSON>] = [
            .set(key: "c", value: 3), .check(key: "a", ifVersion: 2), .delete(key: "missing"),
        ]
        #expect(throws: WireError.conflict(key: "a", expected: 2, current: 1).at(index: 1)) {
            try state.planBatch(operations, requestId: nil, by: alice, now: 0)
        }
        #expect(throws: WireError.notFound(key: "missing").at(index: 1)) {
            try state.planBatch([.set(key: "c", value: 3), .delete(key: "missing")], requestId: nil, by: alice, now: 0)
        }
        #expect(state.revision == 2 && state.entry("c") == nil)
    }

    @Test func aSetThatChangesNothingReportsTheKeysVersionAndAnAllEqualBatchTakesNoRevision() throws {
        var state = try state()
        let planned = try state.planBatch(
            [.set(key: "a", value: 1), .check(key: "b", ifVersion: 2), .check(key: "none", ifVersion: 0)],
            requestId: nil, by: alice, now: 0)
        #expect(planned.records.isEmpty)
        let (changes, payload) = state.apply(planned)
        #expect(changes.isEmpty)
        #expect(
            payload
                == .batch(
                    revision: 2,
                    results: [
                        BatchResult(key: "a", version: 1, changed: false), BatchResult(key: "b", version: 2),
                        BatchResult(key: "none", version: 0),
                    ]))
        #expect(state.revision == 2)
    }

    @Test func theKeyLimitCountsTheBatchAsAWhole() throws {
        let state = try state(maxKeys: 3)
        #expect(throws: WireError.self) {
            try state.planBatch(
                [.set(key: "c", value: 3), .set(key: "d", value: 4)], requestId: nil, by: alice, now: 0)
        }
        do {
            _ = try state.planBatch(
                [.set(key: "c", value: 3), .set(key: "d", value: 4)], requestId: nil, by: alice, now: 0)
        } catch {
            #expect(error.code == .limitExceeded && error.index == 1)
        }
    }

    @Test func aBatchIsOneRecordWithItsRequestIdInside() throws {
        let state = try state()
        let planned = try state.planBatch(
            [.set(key: "c", value: 3), .delete(key: "a")], requestId: "r1", by: alice, now: 5)
        let results = [BatchResult(key: "c", version: 3, changed: true), BatchResult(key: "a", version: 3)]
        let applied = AppliedWrite(requestId: "r1", appliedAt: 5, reply: .batch(revision: 3, results: results))
        #expect(planned.records.count == 2)
        #expect(planned.records.first == planned.writes.first?.change.map { .changeTime($0.at) })
        guard case .batch(let revision, let inner) = planned.records.last else {
            Issue.record("not a batch record: \(planned.records)")
            return
        }
        #expect(revision == 3)
        #expect(inner.count == 3 && inner.last == .appliedWrite(applied))
    }

    @Test func aRepeatedRequestIdAnswersTheFirstReply() throws {
        var state = try state()
        _ = state.apply(try state.planBatch([.set(key: "c", value: 3)], requestId: "r1", by: alice, now: 5))
        let again = try state.planBatch([.set(key: "c", value: 9)], requestId: "r1", by: alice, now: 6)
        #expect(
            again.payload
                == .batch(
                    revision: 3, results: [BatchResult(key: "c", version: 3, changed: true)], duplicate: true))
        #expect(!again.needsPersisting)
    }
}
