import Observatory
import ObservatoryEtcd
import ObservatoryTestSupport
import Testing

/// The client's calls with a completion (its one thread of exchanges) against
/// stand-in members: the same timeouts and retries as the blocking calls, many
/// calls in flight at once, and a close that answers what is under way. No etcd needed.
@Suite struct EtcdExchangeLoopTests {
    private let key = Array("k".utf8)

    private func write(_ client: EtcdClient) async -> Result<EtcdTransactionResult, EtcdError> {
        let transaction = EtcdTransaction(compares: [.absent(key)], success: [.put(key: key, value: key)])
        return await withCheckedContinuation { continuation in
            client.transaction(transaction) { continuation.resume(returning: $0) }
        }
    }

    private func read(_ client: EtcdClient) async -> Result<EtcdRangeResult, EtcdError> {
        await withCheckedContinuation { continuation in
            client.range(.key("foo")) { continuation.resume(returning: $0) }
        }
    }

    @Test func aSilentMemberMakesAWriteUnavailableAndMaybeAppliedWithinItsTimeoutWithoutTryingAnother() async throws {
        let silent = try FakeMember(.silent)
        let other = try FakeMember(.silent)
        defer {
            silent.stop()
            other.stop()
        }
        let client = try EtcdClient(urls: [silent.url, other.url], requestTimeout: .seconds(1))
        let started = ContinuousClock.now
        let outcome = await write(client)
        let elapsed = ContinuousClock.now - started
        guard case .failure(let error) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(error.code == .unavailable)
        #expect(error.mayHaveBeenApplied)
        #expect(elapsed >= .milliseconds(900) && elapsed < .milliseconds(1_500))
        #expect(silent.requests == 1)
        #expect(other.connections == 0)
    }

    @Test func aWriteLostWithItsMemberIsNotSentAgainButAReadAsksTheNextMember() async throws {
        let dying = try FakeMember(.closeAfterRequest)
        let other = try FakeMember(FakeMember.ok(GatewayCaptures.range))
        defer {
            dying.stop()
            other.stop()
        }
        let writer = try EtcdClient(urls: [dying.url, other.url], requestTimeout: .seconds(2))
        guard case .failure(let error) = await write(writer) else {
            Issue.record("expected the write to fail")
            return
        }
        #expect(error.mayHaveBeenApplied)
        #expect(other.requests == 0)
        let reader = try EtcdClient(urls: [dying.url, other.url], requestTimeout: .seconds(2))
        let read = await read(reader)
        #expect((try? read.get())?.keyValues.map(\.valueText) == ["bar"])
        #expect(other.requests == 1)
    }

    @Test func manyCallsAreInFlightAtOnceAndEachGetsItsOwnAnswer() async throws {
        let member = try FakeMember(FakeMember.ok(GatewayCaptures.range))
        defer { member.stop() }
        let client = try EtcdClient(urls: [member.url])
        let answers = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<100 {
                group.addTask { (try? await read(client).get())?.keyValues.first?.valueText == "bar" }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(answers == 100)
        #expect(member.requests == 100)
        // Kept alive: later calls reuse the connections.
        let opened = member.connections
        for _ in 0..<5 { _ = await read(client) }
        #expect(member.connections == opened)
    }

    @Test func closingTheClientAnswersTheCallsUnderWayAtOnce() throws {
        let silent = try FakeMember(.silent)
        defer { silent.stop() }
        let client = try EtcdClient(urls: [silent.url], requestTimeout: .seconds(30))
        let outcome = Locked<Result<EtcdTransactionResult, EtcdError>?>(nil)
        client.transaction(EtcdTransaction(success: [.put(key: key, value: key)])) { answer in
            outcome.withLock { $0 = answer }
        }
        try waitUntil("the member got the write") { silent.requests == 1 }
        client.close()
        try waitUntil("the write was answered", timeout: .seconds(5)) { outcome.withLock { $0 } != nil }
        guard case .failure(let error)? = outcome.withLock({ $0 }) else {
            Issue.record("expected the write to fail")
            return
        }
        #expect(error.code == .canceled)
    }
}
