import ObservatoryWire
import Testing

@testable import ObservatoryServer

@Suite struct OutboundQueueTests {
    private let author = Author(name: "alice", session: "s1")

    private func update(_ key: String, old: EncodedJSON?, new: EncodedJSON, version: Int64) -> StoreChange {
        .update(key: key, old: old, new: new, version: version, by: author)
    }

    @Test func framesAndEventsLeaveInOrder() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        queue.appendFrame(Array(#"{"ok":true,"id":1}"#.utf8) + [10])
        #expect(queue.appendEvent(update("a", old: nil, new: 1, version: 1)) == .queued)
        queue.appendFrame(Array(#"{"ok":true,"id":2}"#.utf8) + [10])
        let messages = try queue.drainMessages()
        let repliesAndEventsInOrder = messages.map { $0["id"] ?? $0["event"] } == [1, "update", 2]
        #expect(repliesAndEventsInOrder)
        #expect(queue.isEmpty)
    }

    /// A drained queue empties its slots before it is used again, whether the
    /// batch was small (slots kept) or large (storage dropped).
    @Test(arguments: [3, 300])
    func aDrainedQueueTakesNewItemsInOrder(batch: Int) throws {
        var queue = OutboundQueue(maxQueuedBytes: 1_000_000)
        var version: Int64 = 0
        for round in 0..<3 {
            var expected: [JSONValue] = []
            for index in 0..<batch {
                version += 1
                if index % 2 == 0 {
                    queue.appendFrame(Array(#"{"ok":true,"id":\#(version)}"#.utf8) + [10])
                    expected.append(.integer(version))
                } else {
                    #expect(
                        queue.appendEvent(update("k\(round)", old: nil, new: .integer(version), version: version))
                            == .queued)
                    expected.append(.integer(version))
                }
            }
            let messages = try queue.drainMessages()
            #expect(messages.map { $0["id"] ?? $0["new"] } == expected)
            #expect(queue.isEmpty)
        }
    }

    @Test func anEventWithNothingAheadOfItLeavesBeforeWhatIsQueuedAfterIt() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        let first = update("a", old: nil, new: 1, version: 1)
        #expect(queue.appendEvent(first) == .queued)
        #expect(queue.queuedBytes == first.frame.count)
        queue.appendFrame(Array(#"{"ok":true,"id":7}"#.utf8) + [10])
        #expect(queue.appendEvent(update("a", old: 1, new: 2, version: 2)) == .queued)
        let messages = try queue.drainMessages()
        #expect(messages.map { $0["version"] ?? $0["id"] } == [1, 7, 2])
        #expect(queue.isEmpty)
    }

    @Test func anEventStorageHasNotAcknowledgedWaitsForIt() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        #expect(queue.appendEvent(update("a", old: nil, new: 1, version: 5), acknowledgedRevision: 4) == .queued)
        let waiting = OutboundQueue.Acknowledgement(revision: 4) { _, _ in nil }
        #expect(queue.nextBytes(acknowledging: waiting).isEmpty)
        #expect(queue.waitingForRevision == 5)
        let acknowledged = OutboundQueue.Acknowledgement(revision: 5) { _, _ in nil }
        let bytes = queue.nextBytes(acknowledging: acknowledged)
        #expect(try json(Array(bytes.dropLast()))["version"] == 5)
    }

    /// A write's reply within what storage has acknowledged when it is queued
    /// need not wait for the flush to look again; one beyond it waits for its revision.
    @Test func aWriteReplyWaitsOnlyForARevisionStorageHasNotAcknowledged() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        let nothing = OutboundQueue.Acknowledgement(revision: 0) { _, _ in nil }
        let first = Array(#"{"ok":true,"id":1}"#.utf8) + [10]
        queue.appendWriteReply(first, revision: 4, id: .integer(1), acknowledgedRevision: 4)
        #expect(Array(queue.nextBytes(acknowledging: nothing)) == first)
        queue.markSent(first.count)
        queue.appendWriteReply(first, revision: 5, id: .integer(1), acknowledgedRevision: 4)
        #expect(queue.nextBytes(acknowledging: nothing).isEmpty)
        #expect(queue.waitingForRevision == 5)
    }

    /// A reply that need not wait still goes behind an event that does.
    @Test func aReplyDoesNotOvertakeAnEventWaitingForStorage() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        #expect(queue.appendEvent(update("a", old: nil, new: 1, version: 5), acknowledgedRevision: 4) == .queued)
        queue.appendWriteReply(
            Array(#"{"ok":true,"id":1}"#.utf8) + [10], revision: 3, id: .integer(1), acknowledgedRevision: 4)
        queue.appendFrame(Array(#"{"ok":true,"id":2}"#.utf8) + [10])
        let waiting = OutboundQueue.Acknowledgement(revision: 4) { _, _ in nil }
        #expect(queue.nextBytes(acknowledging: waiting).isEmpty)
        let messages = try queue.drainMessages()
        #expect(messages.map { $0["version"] ?? $0["id"] } == [5, 1, 2])
    }

    /// Events that go straight to the write buffer can no longer be coalesced,
    /// so at most a quarter of the limit goes there; the rest stays coalescable.
    @Test func eventsPastAQuarterOfTheLimitStayCoalescable() throws {
        let sample = update("a", old: 0, new: 0, version: 1)
        var queue = OutboundQueue(maxQueuedBytes: sample.frame.count * 12)
        var outcomes: [OutboundQueue.EventOutcome] = []
        for version in 1...40 {
            outcomes.append(
                queue.appendEvent(
                    update(
                        "a", old: .integer(Int64(version - 1)), new: .integer(Int64(version)), version: Int64(version)))
            )
        }
        #expect(outcomes.allSatisfy { $0 == .queued })
        #expect(queue.isCoalescing)
        let messages = try queue.drainMessages()
        // Three whole events fit in a quarter of twelve; then one coalesced event.
        #expect(messages.map { $0["version"] } == [1, 2, 3, 40])
        #expect(messages.last?["old"] == 3)
    }

    @Test func partialSendsResumeMidFrameWithoutLosingBytes() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000, chunkBytes: 8)
        for id in 0..<5 { queue.appendFrame(Array(#"{"id":\#(id)}"#.utf8) + [10]) }
        var bytes: [UInt8] = []
        while true {
            let chunk = queue.nextBytes()
            if chunk.isEmpty { break }
            let taken = min(3, chunk.count)
            bytes.append(contentsOf: chunk.prefix(taken))
            queue.markSent(taken)
        }
        let expectedText = (0..<5).map { #"{"id":\#($0)}"# + "\n" }.joined()
        #expect(String(decoding: bytes, as: UTF8.self) == expectedText)
    }

    @Test func heldEventsFollowTheRepliesQueuedMeanwhile() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        queue.holdEvents()
        #expect(queue.appendEvent(update("a", old: nil, new: 1, version: 1)) == .queued)
        queue.appendFrame(Array(#"{"ok":true,"id":1}"#.utf8) + [10])
        #expect(queue.releaseEvents() == .queued)
        let messages = try queue.drainMessages()
        let repliesAndEventsInOrder = messages.map { $0["id"] ?? $0["event"] } == [1, "update"]
        #expect(repliesAndEventsInOrder)
    }

    @Test func overflowCoalescesPendingEventsPerKey() throws {
        let one = update("a", old: nil, new: 0, version: 1)
        // Room for the first three events (the third carries an "old"), not for a fourth.
        var queue = OutboundQueue(maxQueuedBytes: one.frame.count * 3 + 20)
        _ = queue.appendEvent(one)
        _ = queue.appendEvent(update("b", old: nil, new: 0, version: 2))
        _ = queue.appendEvent(update("a", old: 0, new: 1, version: 3))
        #expect(!queue.isCoalescing)
        #expect(queue.appendEvent(update("a", old: 1, new: 2, version: 4)) == .queued)
        #expect(queue.isCoalescing)
        #expect(queue.appendEvent(update("a", old: 2, new: 3, version: 5)) == .queued)
        let messages = try queue.drainMessages()
        #expect(messages.count == 2)
        #expect(messages[0]["key"] == "a")
        #expect(messages[0]["old"] == nil)
        #expect(messages[0]["new"] == 3)
        #expect(messages[0]["version"] == 5)
        #expect(messages[1]["key"] == "b")
        #expect(!queue.isCoalescing)
    }

    @Test func coalescedUpdatesKeepTheFirstOld() throws {
        let first = update("a", old: "x", new: "y", version: 1)
        var queue = OutboundQueue(maxQueuedBytes: first.frame.count)
        _ = queue.appendEvent(first)
        #expect(queue.appendEvent(update("a", old: "y", new: "z", version: 2)) == .queued)
        let messages = try queue.drainMessages()
        #expect(
            messages == [
                try json(
                    #"{"event":"update","key":"a","old":"x","new":"z","version":2,"author":"alice","session":"s1"}"#)
            ])
    }

    @Test func createThenDeleteCoalescesToADeleteWithOld() throws {
        let created = update("a", old: nil, new: 1, version: 1)
        var queue = OutboundQueue(maxQueuedBytes: created.frame.count)
        _ = queue.appendEvent(created)
        _ = queue.appendEvent(.delete(key: "a", old: 1, version: 2, by: author))
        let messages = try queue.drainMessages()
        #expect(messages.count == 1)
        #expect(messages[0]["event"] == "delete")
        #expect(messages[0]["old"] == 1)
        #expect(messages[0]["version"] == 2)
    }

    @Test func overflowOfDistinctKeysFailsWithSlowConsumerAndIdNull() throws {
        let one = update("k0", old: nil, new: 0, version: 1)
        var queue = OutboundQueue(maxQueuedBytes: one.frame.count * 3)
        var outcomes: [OutboundQueue.EventOutcome] = []
        for index in 0..<4 {
            outcomes.append(queue.appendEvent(update("k\(index)", old: nil, new: 0, version: Int64(index + 1))))
        }
        #expect(outcomes == [.queued, .queued, .queued, .slowConsumer])
        #expect(queue.isFailed)
        queue.appendFrame(Array("{}\n".utf8))
        #expect(queue.appendEvent(one) == .slowConsumer)
        let messages = try queue.drainMessages()
        #expect(messages.count == 1)
        #expect(messages[0]["ok"] == false)
        #expect(messages[0]["id"] == .null)
        #expect(messages[0]["error"]?["code"] == "slow_consumer")
    }

    @Test func frameAlreadyBeingSentIsFinishedBeforeTheSlowConsumerError() throws {
        let one = update("k0", old: nil, new: 0, version: 1)
        var queue = OutboundQueue(maxQueuedBytes: one.frame.count * 2, chunkBytes: one.frame.count)
        _ = queue.appendEvent(one)
        let started = queue.nextBytes()
        queue.markSent(5)
        for index in 1..<4 {
            _ = queue.appendEvent(update("k\(index)", old: nil, new: 0, version: Int64(index + 1)))
        }
        #expect(queue.isFailed)
        var bytes = Array(started.prefix(5))
        while true {
            let chunk = queue.nextBytes()
            if chunk.isEmpty { break }
            bytes.append(contentsOf: chunk)
            queue.markSent(chunk.count)
        }
        let lines = bytes.split(separator: UInt8(ascii: "\n"))
        #expect(lines.count == 2)
        #expect(try json(lines[0])["key"] == "k0")
        #expect(try json(lines[1])["error"]?["code"] == "slow_consumer")
    }
}
