import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A write's reply written into the write buffer before storage acknowledged its
/// revision waits there behind its gate, with everything written after it.
@Suite struct OutboundQueueGateTests {
    private let author = Author(name: "alice", session: "s1")

    private func setReply(id: Int64, version: Int64) -> Reply {
        .success(id: .integer(id), .set(key: "k", version: version, changed: true))
    }

    private func acknowledging(_ revision: Int64, losing lost: Int64? = nil) -> OutboundQueue.Acknowledgement {
        OutboundQueue.Acknowledgement(revision: revision) { revision, id in
            guard revision == lost else { return nil }
            return Reply.failure(id: id, WireError(code: .internalError, message: "lost")).encodedLine()
        }
    }

    private func messages(_ bytes: ArraySlice<UInt8>) throws -> [JSONValue] {
        try bytes.split(separator: UInt8(ascii: "\n")).map { try json($0) }
    }

    @Test func bytesAheadOfAGatedReplyGoAndItWaitsForItsRevision() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        queue.append(setReply(id: 1, version: 3), acknowledgedRevision: 4)
        queue.append(setReply(id: 2, version: 5), acknowledgedRevision: 4)
        let bytes = queue.nextBytes(acknowledging: acknowledging(4))
        #expect(try messages(bytes).map { $0["id"] } == [1])
        #expect(queue.waitingForRevision == 5)
        queue.markSent(bytes.count)
        #expect(queue.nextBytes(acknowledging: acknowledging(4)).isEmpty)
        #expect(!queue.isEmpty)
    }

    @Test func whatIsWrittenBehindAGatedReplyWaitsWithIt() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        queue.append(setReply(id: 1, version: 5), acknowledgedRevision: 4)
        // Acknowledged, each of them, yet behind the reply.
        #expect(
            queue.appendEvent(.update(key: "a", old: nil, new: 1, version: 4, by: author), acknowledgedRevision: 4)
                == .queued)
        queue.append(.success(id: .integer(2), .ping(revision: 4, epoch: "e")), acknowledgedRevision: 4)
        #expect(queue.nextBytes(acknowledging: acknowledging(4)).isEmpty)
        #expect(queue.waitingForRevision == 5)
        let bytes = queue.nextBytes(acknowledging: acknowledging(5))
        #expect(try messages(bytes).map { $0["event"] ?? $0["id"] } == [1, "update", 2])
        #expect(queue.waitingForRevision == nil)
        queue.markSent(bytes.count)
        #expect(queue.isEmpty)
    }

    @Test func aLostWriteIsAnsweredWithItsErrorInItsReplysPlace() throws {
        var queue = OutboundQueue(maxQueuedBytes: 10_000)
        queue.append(setReply(id: 1, version: 5), acknowledgedRevision: 4)
        queue.append(setReply(id: 2, version: 6), acknowledgedRevision: 4)
        let first = queue.nextBytes(acknowledging: acknowledging(4, losing: 5))
        let lost = try messages(first)
        #expect(lost.map { $0["id"] } == [1])
        #expect(lost.first?["error"]?["code"] == "internal")
        #expect(queue.waitingForRevision == 6)
        queue.markSent(first.count)
        let second = queue.nextBytes(acknowledging: acknowledging(6))
        #expect(try messages(second).map { $0["id"] } == [2])
        #expect(try messages(second).first?["version"] == 6)
    }
}
