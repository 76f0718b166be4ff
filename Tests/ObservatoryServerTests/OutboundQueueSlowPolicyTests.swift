import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// The `"slow":"close"` policy and the `revision` of `slow_consumer`, on the queue alone.
@Suite struct OutboundQueueSlowPolicyTests {
    private let author = Author(name: "alice", session: "s1")

    private func update(_ key: String, _ version: Int64, size: Int = 0) -> StoreChange {
        let new: EncodedJSON = size > 0 ? .string(String(repeating: "v", count: size)) : .integer(version)
        return .update(key: key, old: nil, new: new, version: version, by: author)
    }

    @Test func strictEventsOfOneKeyAreNeverMergedAndFailWhenTheyDoNotFit() throws {
        let one = update("a", 1)
        var coalescing = OutboundQueue(maxQueuedBytes: one.frame.count * 3)
        var strict = OutboundQueue(maxQueuedBytes: one.frame.count * 3)
        var strictOutcomes: [OutboundQueue.EventOutcome] = []
        for version in Int64(1)...4 {
            #expect(coalescing.appendEvent(update("a", version)) == .queued)
            strictOutcomes.append(strict.appendEvent(update("a", version), mayCoalesce: false))
        }
        #expect(strictOutcomes == [.queued, .queued, .queued, .slowConsumer])
        #expect(try coalescing.drainMessages().map { $0["version"] } == [4])
        let messages = try strict.drainMessages()
        #expect(messages.map { $0["error"]?["code"] } == ["slow_consumer"])
        #expect(messages.first?["error"]?["revision"] == 0)
    }

    @Test func aLaterEventDoesNotMergeAheadOfAStrictEventOfItsKey() throws {
        let one = update("a", 1)
        var queue = OutboundQueue(maxQueuedBytes: one.frame.count * 4)
        for version in Int64(1)...5 {
            #expect(queue.appendEvent(update("a", version)) == .queued)
        }
        #expect(queue.isCoalescing)
        #expect(queue.appendEvent(update("a", 6), mayCoalesce: false) == .queued)
        #expect(queue.appendEvent(update("a", 7)) == .queued)
        let versions = try queue.drainMessages().map { $0["version"] }
        // a1 went straight into the write buffer; a2 to a5 merged into one.
        #expect(versions == [1, 5, 6, 7], "\(versions)")
    }

    @Test func theErrorNamesTheRevisionBeforeTheEarliestEventItDrops() throws {
        let one = update("k0", 1)
        var queue = OutboundQueue(maxQueuedBytes: one.frame.count * 3, chunkBytes: one.frame.count)
        _ = queue.appendEvent(update("k0", 1))
        _ = queue.appendEvent(update("k1", 2))
        // k0@1 moves into the write buffer (one chunk): it is committed, sent ahead of the error.
        #expect(!queue.nextBytes().isEmpty)
        for version in Int64(3)...5 {
            _ = queue.appendEvent(update("k\(version - 1)", version))
        }
        #expect(queue.isFailed)
        #expect(queue.slowConsumerRevision == 1)
        let messages = try queue.drainMessages()
        #expect(messages.map { $0["version"] ?? $0["error"]?["revision"] } == [1, 1])
    }

    @Test func heldEventsCountAmongTheDropped() throws {
        let one = update("k", 1)
        var queue = OutboundQueue(maxQueuedBytes: one.frame.count * 2)
        queue.holdEvents()
        #expect(queue.appendEvent(update("held", 2), mayCoalesce: false) == .queued)
        // Replies already over the limit, then a replay (of another target, at a later revision) fails.
        queue.appendFrame(Array(String(repeating: " ", count: one.frame.count * 3).utf8) + [10])
        #expect(queue.appendReplayed(update("replayed", 3), mayCoalesce: false) == .slowConsumer)
        #expect(queue.slowConsumerRevision == 1)
    }

    @Test func aReplayLargerThanTheLimitIsSentWhole() throws {
        let big = update("a", 1, size: 1_000)
        var queue = OutboundQueue(maxQueuedBytes: big.frame.count)
        for version in Int64(1)...5 {
            #expect(queue.appendReplayed(update("a", version, size: 1_000), mayCoalesce: false) == .queued)
        }
        #expect(try queue.drainMessages().map { $0["version"] } == [1, 2, 3, 4, 5])
        // Once sent, the allowance is spent: live events meet the limit again.
        #expect(queue.appendEvent(update("a", 6, size: 1_000), mayCoalesce: false) == .queued)
        #expect(queue.appendEvent(update("a", 7, size: 1_000), mayCoalesce: false) == .slowConsumer)
    }

    /// Random deliveries, policies, holds and partial sends until the queue fails:
    /// every event up to the error's revision R arrives (a coalesced one covers its
    /// key's earlier versions; a strict key's every version arrives itself), and the
    /// event at R + 1 does not (R is the highest such revision).
    @Test(arguments: 0..<40)
    func everyEventUpToTheRevisionArrivesAndTheNextDoesNot(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var queue = OutboundQueue(maxQueuedBytes: 2_000, chunkBytes: 300)
        var delivered: [(key: String, version: Int64, strict: Bool)] = []
        var received: [JSONValue] = []
        var version: Int64 = 0
        var receivedBytes: [UInt8] = []
        for _ in 0..<5_000 where !queue.isFailed {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                version += 1
                let key = "k\(Int.random(in: 0..<4, using: &random))"
                let strict = key == "k0"
                delivered.append((key, version, strict))
                _ = queue.appendEvent(
                    update(key, version, size: Int.random(in: 1..<120, using: &random)), mayCoalesce: !strict)
            case 6:
                queue.holdEvents()
            case 7:
                _ = queue.releaseEvents()
            default:
                let chunk = queue.nextBytes()
                let count = min(chunk.count, Int.random(in: 0..<200, using: &random))
                receivedBytes.append(contentsOf: chunk.prefix(count))
                queue.markSent(count)
            }
        }
        try #require(queue.isFailed)
        while true {
            let chunk = queue.nextBytes()
            if chunk.isEmpty { break }
            receivedBytes.append(contentsOf: chunk)
            queue.markSent(chunk.count)
        }
        received = try receivedBytes.split(separator: UInt8(ascii: "\n")).map { try json($0) }
        let revision = try #require(received.last?["error"]?["revision"]?.integerValue)
        let events = received.dropLast().compactMap { event in
            event["key"]?.stringValue.flatMap { key in event["version"]?.integerValue.map { (key, $0) } }
        }
        func arrived(_ change: (key: String, version: Int64, strict: Bool)) -> Bool {
            change.strict
                ? events.contains { $0 == (change.key, change.version) }
                : events.contains { $0.0 == change.key && $0.1 >= change.version }
        }
        for change in delivered where change.version <= revision {
            #expect(arrived(change), "v\(change.version) of \(change.key) is within revision \(revision)")
        }
        let next = try #require(delivered.first { $0.version == revision + 1 })
        #expect(!arrived(next))
    }
}

/// The slow policy from the observations to the queue, through `ConnectionOutput`.
@Suite struct ConnectionOutputSlowPolicyTests {
    private let author = Author(name: "alice", session: "s1")

    private func deliver(_ versions: ClosedRange<Int64>, of key: String, to output: ConnectionOutput) {
        for version in versions {
            let change = StoreChange.update(key: key, old: nil, new: .integer(version), version: version, by: author)
            output.deliver(change, via: .key)
        }
    }

    @Test func aKeyThatAClosePrefixCoversIsClosedWithTheRevisionInsteadOfCoalesced() throws {
        let frameBytes = StoreChange.update(key: "a.b", old: nil, new: 1, version: 1, by: author).frame.count
        let coalescing = ConnectionOutput(maxQueuedBytes: frameBytes * 4, maxObservations: 8)
        let strict = ConnectionOutput(maxQueuedBytes: frameBytes * 4, maxObservations: 8)
        for output in [coalescing, strict] {
            _ = try output.updateObservations { observations throws(WireError) in try observations.add(.key("a.b")) }
        }
        _ = try strict.updateObservations { observations throws(WireError) in
            try observations.add(.prefix("a."), slow: .close)
        }
        deliver(1...20, of: "a.b", to: coalescing)
        deliver(1...20, of: "a.b", to: strict)
        #expect(!coalescing.withQueue(\.isFailed))
        #expect(strict.withQueue(\.isFailed))
        // a.b@1 went straight into the write buffer; @2 was the first one dropped.
        #expect(strict.withQueue(\.slowConsumerRevision) == 1)
    }
}
