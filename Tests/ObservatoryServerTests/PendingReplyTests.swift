import Observatory
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A write answered later holds its place among the replies of its connection.
@Suite struct PendingReplyTests {
    @Test func nothingBehindAPendingReplyGoesOutBeforeIt() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        let pending = PendingReply()
        queue.appendFrame(Array(#"{"ok":true,"id":1}"#.utf8) + [10])
        queue.appendPendingWrite(pending, id: .integer(2))
        queue.appendFrame(Array(#"{"ok":true,"id":3}"#.utf8) + [10])
        #expect(try queue.drainMessages().map { $0["id"] } == [1])
        #expect(queue.waitingForPendingReply === pending)
        #expect(!queue.isEmpty)

        pending.fulfill(.success(.set(key: "a", version: 7, changed: true)))
        let messages = try queue.drainMessages()
        #expect(messages.map { $0["id"] } == [2, 3])
        #expect(messages.first?["version"] == 7)
        #expect(queue.isEmpty)
    }

    @Test func aPendingWriteThatFailsIsAnsweredWithItsError() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        let pending = PendingReply()
        queue.appendPendingWrite(pending, id: .integer(1))
        pending.fulfill(.failure(WireError(code: .unavailable, message: "no quorum")))
        let messages = try queue.drainMessages()
        #expect(messages.first?["ok"] == false)
        #expect(messages.first?["error"]?["code"] == "unavailable")
    }

    @Test func aFulfilledReplyStillWaitsForItsRevisionToBeAcknowledged() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        let pending = PendingReply()
        queue.appendPendingWrite(pending, id: .integer(1))
        pending.fulfill(.success(.delete(key: "a", version: 9)))
        let waiting = OutboundQueue.Acknowledgement(revision: 8) { _, _ in nil }
        #expect(queue.nextBytes(acknowledging: waiting).isEmpty)
        #expect(queue.waitingForRevision == 9)
        #expect(try queue.drainMessages().map { $0["id"] } == [1])
    }

    @Test func actionsWaitingForAReplyRunOnceItIsFulfilled() throws {
        let pending = PendingReply()
        let runs = Locked(0)
        pending.whenFulfilled { runs.withLock { $0 += 1 } }
        #expect(runs.withLock { $0 } == 0)
        pending.fulfill(.success(.delete(key: "a", version: 1)))
        pending.fulfill(.success(.delete(key: "a", version: 2)))
        pending.whenFulfilled { runs.withLock { $0 += 1 } }
        #expect(runs.withLock { $0 } == 2)
        #expect(try pending.result?.get() == .delete(key: "a", version: 1))
    }
}
