import ObservatoryEtcd
import ObservatoryTestSupport
import Testing

/// Watches against real members: every event once and in order, resumption
/// after a member dies, compaction, progress, cancellation.
@Suite(.requiresEtcd)
struct EtcdWatchTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The events the store's history holds for `range` from revision 1, read
    /// with a watch of its own: what any watch of it must deliver.
    private func history(_ client: EtcdClient, _ range: EtcdKeyRange, through revision: Int64) throws
        -> [EtcdWatchEvent]
    {
        let recorder = WatchRecorder()
        let watch = EtcdWatch(
            client: client, request: EtcdWatchRequest(range: range, startRevision: 1), onUpdate: recorder.record)
        defer { watch.cancel() }
        _ = try? waitUntil { recorder.events.last.map { $0.revision >= revision } ?? false }
        return recorder.events
    }

    /// Puts, trying again while the cluster elects a new leader (the killed member may have led).
    private func putRetrying(_ client: EtcdClient, _ key: [UInt8], _ value: [UInt8]) throws -> EtcdPutResult {
        for _ in 0..<5 {
            let outcome = Result { () throws(EtcdError) in try client.put(key, value) }
            if case .failure(let error) = outcome, error.code == .unavailable { continue }
            return try outcome.get()
        }
        return try client.put(key, value)
    }

    @Test func prefixWatchSeesEveryEventExactlyOnceInOrderWithPreviousValues() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let recorder = WatchRecorder()
            let watch = EtcdWatch(
                client: client, request: EtcdWatchRequest(range: .prefix("w/")), onUpdate: recorder.record)
            defer { watch.cancel() }
            try waitUntil { recorder.isCreated }
            var expected: [(EtcdWatchEvent.Kind, String, String, Int64)] = []
            for round in 0..<5 {
                let revision = try client.put(bytes("w/a"), bytes("a\(round)")).header.revision
                expected.append((.put, "w/a", "a\(round)", revision))
                try client.put(bytes("other/a"), bytes("not watched"))
            }
            let both = try client.transaction(
                EtcdTransaction(success: [
                    .put(key: bytes("w/b"), value: bytes("b")), .put(key: bytes("w/c"), value: bytes("c")),
                ]))
            expected += [(.put, "w/b", "b", both.header.revision), (.put, "w/c", "c", both.header.revision)]
            let deleted = try client.deleteRange(.key("w/a"))
            expected.append((.delete, "w/a", "", deleted.header.revision))
            try waitUntil { recorder.events.count >= expected.count }
            let events = recorder.events
            #expect(events.map(\.kind) == expected.map(\.0))
            #expect(events.map(\.keyValue.keyText) == expected.map(\.1))
            #expect(events.map(\.keyValue.valueText) == expected.map(\.2))
            #expect(events.map(\.revision) == expected.map(\.3))
            #expect(events.first?.previousKeyValue == nil)
            #expect(events[1].previousKeyValue?.valueText == "a0")
            #expect(events.last?.previousKeyValue?.valueText == "a4")
        }
    }

    @Test func watchResumesWithoutLossOrRepeatAfterItsMemberIsKilled() async throws {
        try await EtcdCluster.withCluster(members: 3) { cluster in
            // The watch streams from the first endpoint, the one killed below.
            let client = try EtcdClient(urls: cluster.endpoints)
            let writer = try EtcdClient(urls: Array(cluster.endpoints.dropFirst()), requestTimeout: .seconds(10))
            let recorder = WatchRecorder()
            let watch = EtcdWatch(
                client: client, request: EtcdWatchRequest(range: .prefix("r/")), onUpdate: recorder.record)
            defer { watch.cancel() }
            try waitUntil { recorder.isCreated }
            for index in 0..<10 { try writer.put(bytes("r/\(index % 3)"), bytes("before \(index)")) }
            try waitUntil { recorder.events.count >= 10 }
            cluster.kill(0)
            var last: Int64 = 0
            for index in 0..<10 {
                last = try putRetrying(writer, bytes("r/\(index % 3)"), bytes("after \(index)")).header.revision
            }
            try waitUntil("the last revision delivered", timeout: .seconds(20)) {
                recorder.events.last?.revision == last
            }
            #expect(recorder.interruptions >= 1)
            let delivered = recorder.events
            // A put retried after a timeout may have been applied twice: the
            // store's own history is the reference, not a count.
            #expect(delivered.count >= 20)
            #expect(delivered == (try history(writer, .prefix("r/"), through: last)))
        }
    }

    @Test func watchOnAMemberThatLostItsQuorumIsInterrupted() async throws {
        try await EtcdCluster.withCluster(members: 3) { cluster in
            // Only the first member: the watch cannot move, so it must say it is cut off.
            let client = try EtcdClient(urls: [cluster.endpoints[0]])
            let recorder = WatchRecorder()
            let watch = EtcdWatch(
                client: client, request: EtcdWatchRequest(range: .prefix("q/")), onUpdate: recorder.record)
            defer { watch.cancel() }
            try waitUntil { recorder.isCreated }
            cluster.kill(1)
            cluster.kill(2)
            // etcd ends a leaderless member's streams after three election timeouts (3 s here).
            try waitUntil { recorder.interruptions == 1 }
        }
    }

    @Test func compactedStartRevisionIsReportedAsCompactedAndEndsTheWatch() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            var revision: Int64 = 0
            for index in 0..<5 { revision = try client.put(bytes("c/key"), bytes("\(index)")).header.revision }
            try client.compact(revision)
            let recorder = WatchRecorder()
            let watch = EtcdWatch(
                client: client, request: EtcdWatchRequest(range: .prefix("c/"), startRevision: 2),
                onUpdate: recorder.record)
            defer { watch.cancel() }
            try waitUntil { recorder.all.contains(.compacted(compactRevision: revision)) }
            #expect(recorder.events.isEmpty)
        }
    }

    @Test func idleWatchReceivesProgressAtTheCurrentRevision() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let revision = try client.put(bytes("elsewhere"), bytes("x")).header.revision
            let recorder = WatchRecorder()
            let watch = EtcdWatch(
                client: client, request: EtcdWatchRequest(range: .prefix("p/"), startRevision: revision),
                onUpdate: recorder.record)
            defer { watch.cancel() }
            // The fixture's members notify progress every second.
            try waitUntil { recorder.all.contains(.progress(revision: revision)) }
        }
    }

    @Test func cancelReturnsPromptlyAndNothingIsDeliveredAfterIt() async throws {
        try await EtcdCluster.withCluster(members: 1) { cluster in
            let client = try EtcdClient(urls: cluster.endpoints)
            let recorder = WatchRecorder()
            let watch = EtcdWatch(
                client: client, request: EtcdWatchRequest(range: .prefix("x/")), onUpdate: recorder.record)
            try waitUntil { recorder.isCreated }
            let started = ContinuousClock.now
            watch.cancel()
            #expect(ContinuousClock.now - started < .milliseconds(500))
            let count = recorder.all.count
            try client.put(bytes("x/1"), bytes("after cancel"))
            // A later watch sees the put, so the cancelled one had every chance to.
            let check = WatchRecorder()
            let later = EtcdWatch(
                client: client, request: EtcdWatchRequest(range: .prefix("x/"), startRevision: 1),
                onUpdate: check.record)
            defer { later.cancel() }
            try waitUntil("exactly one event") { check.events.count == 1 }
            #expect(recorder.all.count == count)
        }
    }
}
