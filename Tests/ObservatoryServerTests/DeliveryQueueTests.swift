import Testing

@testable import ObservatoryServer

@Suite struct DeliveryQueueTests {
    /// What the sender takes next, after delivering what it took before.
    private func taken(_ queue: inout DeliveryQueue<String>) -> [String] {
        var batch: [String] = []
        queue.take(into: &batch)
        return batch
    }

    @Test func theFirstThreadToQueueWhileNobodySendsBecomesTheSender() {
        var queue = DeliveryQueue<String>()
        #expect(!queue.isSending)
        #expect(queue.enqueue("a", revision: 1) == .startSending)
        #expect(queue.isSending)
    }

    @Test func aDeliveryQueuedWhileAnotherThreadSendsIsLeftToThatSender() {
        var queue = DeliveryQueue<String>()
        _ = queue.enqueue("a", revision: 1)
        #expect(queue.enqueue("b", revision: 2) == .leaveToSender)
        let batch = taken(&queue)
        #expect(batch == ["a", "b"])
    }

    @Test func theSenderTakesDeliveriesInTheOrderTheyWereQueued() {
        var queue = DeliveryQueue<String>()
        _ = queue.enqueue("a", revision: 1)
        var batch = taken(&queue)
        #expect(batch == ["a"])
        _ = queue.enqueue("b", revision: 2)
        _ = queue.enqueue("c", revision: 2)
        _ = queue.enqueue("d", revision: 3)
        batch = taken(&queue)
        #expect(batch == ["b", "c", "d"])
    }

    @Test func takingNothingEndsTheSendersTurnAndTheNextQueueStartsAnother() {
        var queue = DeliveryQueue<String>()
        _ = queue.enqueue("a", revision: 1)
        _ = taken(&queue)
        var batch = taken(&queue)
        #expect(batch.isEmpty)
        #expect(!queue.isSending)
        #expect(queue.enqueue("b", revision: 2) == .startSending)
        batch = taken(&queue)
        #expect(batch == ["b"])
    }

    @Test func everyChangeIsDeliveredWhileNobodySends() {
        let queue = DeliveryQueue<String>()
        #expect(queue.deliveredRevision(applied: 7) == 7)
    }

    @Test func deliveredRevisionStopsBeforeTheOldestDeliveryUnderWayOrQueued() {
        var queue = DeliveryQueue<String>()
        _ = queue.enqueue("a", revision: 4)
        #expect(queue.deliveredRevision(applied: 4) == 3)
        _ = taken(&queue)
        _ = queue.enqueue("b", revision: 6)
        // "a" is being delivered: nothing from 4 on is done.
        #expect(queue.deliveredRevision(applied: 6) == 3)
        var batch = taken(&queue)
        #expect(batch == ["b"])
        // "a" is done, "b" under way.
        #expect(queue.deliveredRevision(applied: 7) == 5)
        batch = taken(&queue)
        #expect(batch.isEmpty)
        #expect(queue.deliveredRevision(applied: 7) == 7)
    }
}
