import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Replies copied into the queue: straight into the write buffer only when
/// nothing holds them back, and then in the same order and framing as before.
@Suite struct OutboundQueueReplyTests {
    private let author = Author(name: "alice", session: "s1")

    private func setReply(id: Int64, version: Int64) -> Reply {
        .success(id: .integer(id), .set(key: "k", version: version, changed: true))
    }

    @Test func aWriteReplyWithNothingAheadStillWaitsForItsRevision() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        queue.append(setReply(id: 1, version: 5), acknowledgedRevision: 4)
        #expect(queue.nextBytes(acknowledging: OutboundQueue.Acknowledgement(revision: 4) { _, _ in nil }).isEmpty)
        #expect(queue.waitingForRevision == 5)
        let messages = try queue.drainMessages()
        #expect(messages.map { $0["id"] } == [1])
        #expect(queue.isEmpty)
    }

    @Test func aReplyGoesOutBehindTheEventQueuedAheadOfIt() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        let change = StoreChange.update(key: "a", old: nil, new: 1, version: 3, by: author)
        // Not acknowledged yet: the event waits as an item.
        #expect(queue.appendEvent(change, acknowledgedRevision: 2) == .queued)
        queue.append(setReply(id: 7, version: 2), acknowledgedRevision: 2)
        queue.append(.success(id: .integer(8), .ping(revision: 3, epoch: "e")), acknowledgedRevision: 2)
        let messages = try queue.drainMessages()
        #expect(messages.map { $0["event"] ?? $0["id"] } == ["update", 7, 8])
    }

    @Test func repliesWrittenStraightKeepTheirOrderAndBytes() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        let replies: [Reply] = [
            setReply(id: 1, version: 1),
            .success(id: .string("two"), .delete(key: "k", version: 2)),
            .failure(id: .integer(3), .notFound(key: "k")),
            .success(id: nil, .set(key: "tab\tkey", version: 4, changed: false, duplicate: true)),
        ]
        for reply in replies { queue.append(reply, acknowledgedRevision: .max) }
        let lines = queue.drainLines()
        #expect(lines.map { Array($0) + [10] } == replies.map { $0.encodedLine() })
    }

    @Test func aReplyToAWebSocketIsFramedAsAMessage() {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        queue.framing = .webSocketText
        let reply = setReply(id: 1, version: 1)
        queue.append(reply, acknowledgedRevision: .max)
        let bytes = Array(queue.nextBytes())
        let line = reply.encodedLine()
        #expect(bytes.first == 0x81)
        #expect(bytes.suffix(line.count - 1) == line.dropLast())
    }
}
