import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A session's reply slots: numbered once each, one awaited at a time.
@Suite struct ReplySlotsTests {
    @Test func aSlotAwaitedIsAnsweredOnceAndTheNextSlotGetsTheNextNumber() {
        var slots = ReplySlots()
        #expect(slots.next == 0)
        slots.await(0, counting: .change)
        #expect(slots.isAwaiting)
        #expect(slots.next == 1)
        let first = slots.receive(0)
        let second = slots.receive(0)
        #expect(first == .change)
        #expect(second == nil, "a second answer to the same slot is ignored")
        #expect(!slots.isAwaiting)
    }

    @Test func anAnswerToAnotherSlotLeavesTheAwaitedOneWaiting() {
        var slots = ReplySlots()
        slots.await(0, counting: .change)
        _ = slots.receive(0)
        slots.await(slots.next, counting: .resume)
        let late = slots.receive(0)
        #expect(late == nil, "a late answer to the earlier slot")
        #expect(slots.isAwaiting)
        let awaited = slots.receive(1)
        #expect(awaited == .resume)
    }

    @Test func aBatchAnsweredLaterCountsTheChangesItMade() {
        let metrics = ServerMetrics()
        let operations: [BatchOperation<EncodedJSON>] = [
            .set(key: "a", value: 1), .delete(key: "b"), .check(key: "c", ifVersion: 2),
        ]
        let results = [
            BatchResult(key: "a", version: 3, changed: true), BatchResult(key: "b", version: 3),
            BatchResult(key: "c", version: 2),
        ]
        ReplySlots.Counting.batch(operations).count(
            .reply(.success(.batch(revision: 3, results: results))), in: metrics)
        #expect(metrics.changes.current == 2)
        ReplySlots.Counting.resume.count(.snapshot([], at: 3), in: metrics)
        ReplySlots.Counting.resume.count(.replay([], through: 3), in: metrics)
        #expect(metrics.resumesReset.current == 1)
        #expect(metrics.resumesReplayed.current == 1)
    }
}
