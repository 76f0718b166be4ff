import ObservatoryEtcd
import ObservatoryTestSupport
import Testing

/// The watch against stand-in members: refusals end it, unreachable members interrupt it once.
@Suite struct EtcdWatchTransportTests {
    /// A watch of `a/` on `member` alone, and what it reports.
    private func watch(on member: FakeMember) throws -> (EtcdWatch, WatchRecorder) {
        let recorder = WatchRecorder()
        let watch = EtcdWatch(
            client: try EtcdClient(urls: [member.url]), request: EtcdWatchRequest(range: .prefix("a/")),
            onUpdate: recorder.record)
        return (watch, recorder)
    }

    @Test func refusedWatchEndsAsCanceledWithEtcdsReason() throws {
        let member = try FakeMember(FakeMember.answer("400 Bad Request", GatewayCaptures.badJSON))
        defer { member.stop() }
        let (watch, recorder) = try watch(on: member)
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
        let leaderless = try FakeMember(FakeMember.answer("503 Service Unavailable", GatewayCaptures.watchNoLeader))
        defer { leaderless.stop() }
        let (watch, recorder) = try watch(on: leaderless)
        defer { watch.cancel() }
        try waitUntil { leaderless.requests >= 3 }
        #expect(recorder.interruptions == 1)
        #expect(recorder.all.count == 1, "\(recorder.all)")
    }

    @Test func failingMemberInterruptsTheWatchOnceWhileItKeepsTrying() throws {
        let dying = try FakeMember(.closeAfterRequest)
        defer { dying.stop() }
        let (watch, recorder) = try watch(on: dying)
        // Three attempts, each failing the same way: one report of the outage.
        try waitUntil { dying.requests >= 3 }
        #expect(recorder.interruptions == 1)
        #expect(recorder.all.count == 1)
        let started = ContinuousClock.now
        watch.cancel()
        #expect(ContinuousClock.now - started < .milliseconds(500))
    }
}
