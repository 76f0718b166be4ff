import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// How a flush takes bytes from the queue: counted as sent when taken, and the
/// bytes a socket did not take given back, to go out next, ahead of later ones.
@Suite struct OutboundQueueSendingTests {
    private let author = Author(name: "alice", session: "s1")

    private func reply(_ id: Int) -> [UInt8] {
        Array(#"{"ok":true,"id":\#(id),"key":"some.key","version":\#(id)}"#.utf8) + [10]
    }

    private func event(_ version: Int64) -> StoreChange {
        .update(key: "k", old: nil, new: .integer(version), version: version, by: author)
    }

    /// Takes and sends everything queued, as a socket that takes every byte would.
    private func sendAll(_ queue: inout OutboundQueue) -> [UInt8] {
        var sent: [UInt8] = []
        while true {
            let bytes = queue.takeForSending(acknowledging: .everything)
            if bytes.isEmpty { return sent }
            sent += bytes
        }
    }

    @Test func bytesTakenForSendingCountAsSentAtOnce() {
        var queue = OutboundQueue(maxQueuedBytes: 1_000_000)
        queue.appendFrame(reply(1))
        let taken = queue.takeForSending(acknowledging: .everything)
        #expect(Array(taken) == reply(1))
        #expect(queue.isEmpty)
        #expect(queue.sentByteCount == reply(1).count)
        #expect(queue.takeForSending(acknowledging: .everything).isEmpty)
    }

    @Test func bytesTheSocketDidNotTakeGoOutNextAheadOfLaterOnes() {
        var queue = OutboundQueue(maxQueuedBytes: 1_000_000)
        queue.appendFrame(reply(1))
        let taken = queue.takeForSending(acknowledging: .everything)
        // Queued during the send, from another thread.
        #expect(queue.appendEvent(event(2)) == .queued)
        queue.putBack(taken.suffix(10))
        #expect(queue.sentByteCount == reply(1).count - 10)
        #expect(sendAll(&queue) == Array(reply(1).suffix(10)) + event(2).frame)
    }

    @Test func bytesGivenBackAfterAnEventEmptiedTheBufferStillGoFirst() {
        var queue = OutboundQueue(maxQueuedBytes: 1_000_000)
        var expected: [UInt8] = []
        for id in 1...30 {
            queue.appendFrame(reply(id))
            expected += reply(id)
        }
        let taken = queue.takeForSending(acknowledging: .everything)
        #expect(Array(taken) == expected)
        // Every byte counts as sent, more than 1 KiB of them: the event empties the buffer first.
        #expect(queue.appendEvent(event(31)) == .queued)
        queue.putBack(taken.suffix(100))
        #expect(sendAll(&queue) == Array(expected.suffix(100)) + event(31).frame)
        #expect(queue.sentByteCount == expected.count + event(31).frame.count)
    }
}
