import Observatory
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A write answered later holds its slot among the replies of its connection's
/// queue, and the queue's machine fills the slot when the answer comes in.
@Suite struct ReplySlotTests {
    @Test func nothingBehindASlotGoesOutBeforeItsAnswer() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        queue.appendFrame(Array(#"{"ok":true,"id":1}"#.utf8) + [10])
        queue.appendPendingWrite(slot: 4, id: .integer(2))
        queue.appendFrame(Array(#"{"ok":true,"id":3}"#.utf8) + [10])
        #expect(try queue.drainMessages().map { $0["id"] } == [1])
        #expect(queue.isWaitingForAnswer)
        #expect(!queue.isEmpty)

        let filled = queue.fill(4, with: .reply(.success(.set(key: "a", version: 7, changed: true))))
        #expect(filled)
        let messages = try queue.drainMessages()
        #expect(messages.map { $0["id"] } == [2, 3])
        #expect(messages.first?["version"] == 7)
        #expect(!queue.isWaitingForAnswer)
        #expect(queue.isEmpty)
    }

    @Test func aWriteAnsweredWithAnErrorIsRepliedWithIt() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        queue.appendPendingWrite(slot: 0, id: .integer(1))
        _ = queue.fill(0, with: .reply(.failure(WireError(code: .unavailable, message: "no quorum"))))
        let messages = try queue.drainMessages()
        #expect(messages.first?["ok"] == false)
        #expect(messages.first?["error"]?["code"] == "unavailable")
    }

    @Test func anAnsweredWriteStillWaitsForItsRevisionToPassTheGate() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        queue.appendPendingWrite(slot: 0, id: .integer(1))
        _ = queue.fill(0, with: .reply(.success(.delete(key: "a", version: 9))))
        let waiting = OutboundQueue.Acknowledgement(revision: 8) { _, _ in nil }
        #expect(queue.nextBytes(acknowledging: waiting).isEmpty)
        #expect(queue.waitingForRevision == 9)
        #expect(!queue.isWaitingForAnswer)
        #expect(try queue.drainMessages().map { $0["id"] } == [1])
    }

    @Test func onlyTheFirstAnswerToASlotCounts() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        queue.appendPendingWrite(slot: 2, id: .integer(1))
        let first = queue.fill(2, with: .reply(.success(.delete(key: "a", version: 1))))
        let second = queue.fill(2, with: .reply(.failure(WireError(code: .unavailable, message: "too late"))))
        #expect(first)
        #expect(!second)
        let messages = try queue.drainMessages()
        #expect(messages.count == 1)
        #expect(messages.first?["version"] == 1)
    }

    @Test func anAnswerFillsOnlyTheSlotOfItsNumber() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        queue.appendPendingWrite(slot: 5, id: .integer(1))
        let filled = queue.fill(4, with: .reply(.success(.delete(key: "a", version: 1))))
        #expect(!filled)
        #expect(try queue.drainMessages().isEmpty)
        #expect(queue.isWaitingForAnswer)
    }

    @Test func aSlotDroppedByASlowConsumerFailureTakesNoAnswer() throws {
        var queue = OutboundQueue(maxQueuedBytes: 300, chunkBytes: 1)
        queue.appendPendingWrite(slot: 0, id: .integer(1))
        let padding = EncodedJSON(.string(String(repeating: "x", count: 120)))
        let bob = Author(name: "bob", session: "sb.1")
        for version in 1...5 {
            _ = queue.appendEvent(
                StoreChange.update(key: "k\(version)", old: nil, new: padding, version: Int64(version), by: bob)
                    .encoded(),
                mayCoalesce: false)
        }
        #expect(queue.isFailed)
        let filled = queue.fill(0, with: .reply(.success(.delete(key: "a", version: 1))))
        #expect(!filled)
        let messages = try queue.drainMessages()
        #expect(messages.map { $0["error"]?["code"] } == ["slow_consumer"])
    }
}
