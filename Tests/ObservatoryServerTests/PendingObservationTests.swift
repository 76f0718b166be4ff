import Observatory
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// A resuming `observe` answered later holds its slot in its connection's
/// output: its reply, then its replay, then the events queued behind it.
@Suite struct PendingObservationTests {
    private let bob = Author(name: "bob", session: "sb.1")

    private func change(_ key: String, _ value: EncodedJSON, _ version: Int64, old: EncodedJSON? = nil) -> StoreChange {
        StoreChange.update(key: key, old: old, new: value, version: version, by: bob).encoded()
    }

    private func output(observing targets: [Target]) throws -> ConnectionOutput {
        let output = ConnectionOutput(maxQueuedBytes: 100_000, maxObservations: 10)
        for target in targets { _ = try output.updateObservations { try $0.add(target) } }
        return output
    }

    @Test func liveEventsQueuedBehindItGoOutAfterItsReplyAndReplay() throws {
        let output = try output(observing: [.prefix("sky.")])
        output.appendPendingObservation(slot: 0, resumeRevision: 10, id: .integer(1), route: .prefix)
        output.deliver(change("sky.a", 3, 20), via: .prefix)
        #expect(try output.drainMessages().isEmpty)
        #expect(output.withQueue { $0.isWaitingForAnswer })

        #expect(output.fill(0, with: .replay([change("sky.a", 1, 11), change("sky.a", 2, 14, old: 1)], through: 15)))
        let messages = try output.drainMessages()
        #expect(messages.first?["id"] == 1)
        #expect(messages.first?["resumed"] == true)
        #expect(messages.first?["revision"] == 15)
        #expect(messages.dropFirst().map { $0["version"] } == [11, 14, 20])
        #expect(output.withQueue { $0.isEmpty })
    }

    @Test func aSnapshotAnswerCarriesItsValuesAndNoReplay() throws {
        let output = try output(observing: [.prefix("sky.")])
        output.appendPendingObservation(slot: 0, resumeRevision: 10, id: .integer(1), route: .prefix)
        output.deliver(change("sky.a", 3, 20), via: .prefix)
        let entry = RawValueEntry(key: "sky.a", value: 2, version: 14, author: "bob", session: "sb.1")
        #expect(output.fill(0, with: .snapshot([entry], at: 15)))
        #expect(!output.fill(0, with: .replay([change("sky.a", 1, 11)], through: 15)))
        let messages = try output.drainMessages()
        #expect(messages.first?["resumed"] == false, "the first answer counts")
        #expect(messages.first?["values"]?[0]?["value"] == 2)
        #expect(messages.dropFirst().map { $0["version"] } == [20])
    }

    @Test func theReplayIsFilteredLikeLiveEventsOfItsRoute() throws {
        // `sky.a` is observed on its own: its changes come by the key route, never by the prefix's.
        let output = try output(observing: [.key("sky.a"), .prefix("sky.")])
        output.appendPendingObservation(slot: 0, resumeRevision: 10, id: .integer(1), route: .prefix)
        output.fill(0, with: .replay([change("sky.a", 1, 11), change("sky.b", 1, 12)], through: 15))
        let messages = try output.drainMessages()
        #expect(messages.dropFirst().map { $0["key"] } == ["sky.b"])
    }

    @Test func aSlowConsumerFailureWhileItWaitsNamesTheResumePoint() throws {
        let output = ConnectionOutput(maxQueuedBytes: 2_000, maxObservations: 10)
        _ = try output.updateObservations { observations in
            try observations.add(.prefix("sky."), slow: .close)
        }
        output.appendPendingObservation(slot: 0, resumeRevision: 10, id: .integer(1), route: .prefix)
        for version in 20..<100 { output.deliver(change("sky.k\(version)", 1, Int64(version)), via: .prefix) }
        let messages = try output.drainMessages()
        #expect(messages.count == 1)
        #expect(messages.first?["error"]?["code"] == "slow_consumer")
        #expect(messages.first?["error"]?["revision"] == 10, "the replay after 10 was never sent")
    }

    @Test func eventsCoalescedBehindItStillMergeWithTheirOwnKeyAfterItsReplayIsIn() throws {
        let padding = EncodedJSON(.string(String(repeating: "x", count: 120)))
        var queue = OutboundQueue(maxQueuedBytes: 700, chunkBytes: 1)
        var observations = ObservationSet(limit: 10)
        _ = try observations.add(.prefix(""))
        queue.appendPendingObservation(
            PendingObservation(
                slot: 0, resumeRevision: 10, id: .integer(1), route: .prefix, observations: observations))
        _ = queue.appendEvent(change("a", padding, 20))
        _ = queue.appendEvent(change("b", padding, 21))
        _ = queue.appendEvent(change("a", padding, 22, old: padding))
        _ = queue.appendEvent(change("c", padding, 23))
        #expect(queue.isCoalescing, "the set-up overflows the queue once")

        _ = queue.fill(0, with: .replay([change("x", 1, 11), change("y", 1, 12)], through: 15))
        let first = queue.nextBytes()
        queue.markSent(first.count)
        _ = queue.appendEvent(change("a", 5, 24, old: padding))
        let rest = try queue.drainMessages()
        #expect(rest.map { $0["key"] } == ["x", "y", "a", "b", "c"])
        #expect(rest.map { $0["version"] } == [11, 12, 24, 21, 23], "a's later change merged into a's own event")
    }
}
