import ObservatoryEtcd
import ObservatoryTestSupport
import Testing

/// The watch against stand-in members: refusals end it, unreachable members interrupt it once.
@Suite struct EtcdWatchTransportTests {
    @Test func refusedWatchEndsAsCanceledWithEtcdsReason() throws {
        let body = GatewayCaptures.badJSON
        let response =
            "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let member = try FakeMember(.respond(Array(response.utf8)))
        defer { member.stop() }
        let recorder = WatchRecorder()
        let watch = EtcdWatch(
            client: try EtcdClient(urls: [member.url]), request: EtcdWatchRequest(range: .prefix("a/")),
            onUpdate: recorder.record)
        defer { watch.cancel() }
        try waitUntil { !recorder.all.isEmpty }
        guard case .canceled(let reason) = recorder.all.first else {
            Issue.record("expected canceled, got \(recorder.all)")
            return
        }
        #expect(reason.contains("invalid character"))
        #expect(member.requests == 1)
    }

    /// A member without a leader refuses a new watch (asked with `hasleader`) in the
    /// moments an etcd leader dies: the watch waits it out and goes on from where it
    /// was; ending it made a node reload its state and close its observers.
    @Test func aMemberWithoutALeaderInterruptsTheWatchWithoutEndingIt() throws {
        let body = GatewayCaptures.watchNoLeader
        let response =
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let leaderless = try FakeMember(.respond(Array(response.utf8)))
        defer { leaderless.stop() }
        let recorder = WatchRecorder()
        let watch = EtcdWatch(
            client: try EtcdClient(urls: [leaderless.url]), request: EtcdWatchRequest(range: .prefix("a/")),
            onUpdate: recorder.record)
        defer { watch.cancel() }
        try waitUntil { leaderless.requests >= 3 }
        #expect(recorder.interruptions == 1)
        #expect(recorder.all.count == 1, "\(recorder.all)")
    }

    @Test func failingMemberInterruptsTheWatchOnceWhileItKeepsTrying() throws {
        let dying = try FakeMember(.closeAfterRequest)
        defer { dying.stop() }
        let recorder = WatchRecorder()
        let watch = EtcdWatch(
            client: try EtcdClient(urls: [dying.url]), request: EtcdWatchRequest(range: .prefix("a/")),
            onUpdate: recorder.record)
        // Three attempts, each failing the same way: one report of the outage.
        try waitUntil { dying.requests >= 3 }
        #expect(recorder.interruptions == 1)
        #expect(recorder.all.count == 1)
        let started = ContinuousClock.now
        watch.cancel()
        #expect(ContinuousClock.now - started < .milliseconds(500))
    }
}
