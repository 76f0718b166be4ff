import Testing

@testable import ObservatoryServer

@Suite struct DeliveryQueueTests {
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
        #expect(queue.take() == ["a", "b"])
    }

    @Test func theSenderTakesDeliveriesInTheOrderTheyWereQueued() {
        var queue = DeliveryQueue<String>()
        _ = queue.enqueue("a", revision: 1)
        #expect(queue.take() == ["a"])
        _ = queue.enqueue("b", revision: 2)
        _ = queue.enqueue("c", revision: 2)
        _ = queue.enqueue("d", revision: 3)
        #expect(queue.take() == ["b", "c", "d"])
    }

    @Test func takingNothingEndsTheSendersTurnAndTheNextQueueStartsAnother() {
        var queue = DeliveryQueue<String>()
        _ = queue.enqueue("a", revision: 1)
        _ = queue.take()
        #expect(queue.take().isEmpty)
        #expect(!queue.isSending)
        #expect(queue.enqueue("b", revision: 2) == .startSending)
        #expect(queue.take() == ["b"])
    }

    @Test func everyChangeIsDeliveredWhileNobodySends() {
        let queue = DeliveryQueue<String>()
        #expect(queue.deliveredRevision(applied: 7) == 7)
    }

    @Test func deliveredRevisionStopsBeforeTheOldestDeliveryUnderWayOrQueued() {
        var queue = DeliveryQueue<String>()
        _ = queue.enqueue("a", revision: 4)
        #expect(queue.deliveredRevision(applied: 4) == 3)
        _ = queue.take()
        _ = queue.enqueue("b", revision: 6)
        // "a" is being delivered: nothing from 4 on is done.
        #expect(queue.deliveredRevision(applied: 6) == 3)
        #expect(queue.take() == ["b"])
        // "a" is done, "b" under way.
        #expect(queue.deliveredRevision(applied: 7) == 5)
        #expect(queue.take().isEmpty)
        #expect(queue.deliveredRevision(applied: 7) == 7)
    }
}
