import ObservatoryEtcd
import Testing

/// The client's transport against stand-in members: timeouts, retries, keep-alive
/// and HTTP framing as etcd's gateway uses it. No etcd needed.
@Suite struct EtcdClientTransportTests {
    private let key = Array("k".utf8)

    @Test func silentMemberMakesAWriteUnavailableAndMaybeAppliedWithoutTryingAnother() throws {
        let silent = try FakeMember(.silent)
        let other = try FakeMember(.silent)
        defer {
            silent.stop()
            other.stop()
        }
        let client = try EtcdClient(urls: [silent.url, other.url], requestTimeout: .seconds(1))
        let started = ContinuousClock.now
        let error = #expect(throws: EtcdError.self) { try client.put(key, key) }
        let elapsed = ContinuousClock.now - started
        #expect(error?.code == .unavailable)
        #expect(error?.mayHaveBeenApplied == true)
        #expect(elapsed >= .milliseconds(900) && elapsed < .milliseconds(1_500))
        #expect(silent.requests == 1)
        #expect(other.connections == 0)
    }

    @Test func writeLostWithItsMemberIsReportedAsMaybeAppliedAndNotSentAgain() throws {
        let dying = try FakeMember(.closeAfterRequest)
        let other = try FakeMember(FakeMember.ok(GatewayCaptures.put))
        defer {
            dying.stop()
            other.stop()
        }
        let client = try EtcdClient(urls: [dying.url, other.url], requestTimeout: .seconds(2))
        let error = #expect(throws: EtcdError.self) { try client.put(key, key) }
        #expect(error?.code == .unavailable)
        #expect(error?.mayHaveBeenApplied == true)
        #expect(other.requests == 0)
        // A read lost the same way is asked again of the other member.
        let dyingAgain = try FakeMember(.closeAfterRequest)
        defer { dyingAgain.stop() }
        let reader = try EtcdClient(urls: [dyingAgain.url, other.url], requestTimeout: .seconds(2))
        _ = try reader.range(.key("foo"))
        #expect(other.requests == 1)
    }

    @Test func silentMemberMakesAReadAskTheNextMemberInTimeAndLaterReadsStartThere() throws {
        let silent = try FakeMember(.silent)
        let answering = try FakeMember(FakeMember.ok(GatewayCaptures.range))
        defer {
            silent.stop()
            answering.stop()
        }
        let client = try EtcdClient(urls: [silent.url, answering.url], requestTimeout: .seconds(3))
        let started = ContinuousClock.now
        let result = try client.range(.key("foo"))
        #expect(result.keyValues.map(\.valueText) == ["bar"])
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(silent.requests == 1)
        // Later requests start with the member that answered.
        for _ in 0..<5 { _ = try client.range(.key("foo")) }
        #expect(silent.requests == 1)
        #expect(answering.requests == 6)
    }

    @Test func connectionIsKeptAliveAcrossRequests() throws {
        let member = try FakeMember(FakeMember.ok(GatewayCaptures.put))
        defer { member.stop() }
        let client = try EtcdClient(urls: [member.url])
        for _ in 0..<5 { try client.put(key, key) }
        #expect(member.requests == 5)
        #expect(member.connections == 1)
    }

    @Test func chunkedErrorWithAGRPCTrailerIsMappedToItsCode() throws {
        // As etcd 3.4 sends a keep-alive of a revoked lease: 404, chunked, a trailer after the body.
        let body = GatewayCaptures.leaseNotFound
        let response =
            "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nTrailer: Grpc-Trailer-Content-Type\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n" + String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n"
            + "0\r\nGrpc-Trailer-Content-Type: application/grpc\r\n\r\n"
        let member = try FakeMember(.respond(Array(response.utf8)))
        defer { member.stop() }
        let client = try EtcdClient(urls: [member.url])
        let error = #expect(throws: EtcdError.self) { try client.put(key, key, lease: 5) }
        #expect(error?.code == .leaseNotFound)
        // The connection's framing survived the trailer: it served the next request too.
        _ = #expect(throws: EtcdError.self) { try client.put(key, key, lease: 5) }
        #expect(member.connections == 1)
    }

    @Test func answerThatIsNotJSONIsAnInvalidResponse() throws {
        let member = try FakeMember(FakeMember.ok("<html>not etcd</html>"))
        defer { member.stop() }
        let client = try EtcdClient(urls: [member.url])
        let error = #expect(throws: EtcdError.self) { try client.range(.key("a")) }
        #expect(error?.code == .invalidResponse)
    }

    @Test func unreachableEndpointsFailAsUnavailableWithinTheTimeout() throws {
        // Ports 1 and 2: privileged, so nobody listens there in a test.
        let client = try EtcdClient(urls: ["http://127.0.0.1:1", "http://127.0.0.1:2"], requestTimeout: .seconds(1))
        let started = ContinuousClock.now
        let error = #expect(throws: EtcdError.self) { try client.put(key, key) }
        #expect(error?.code == .unavailable)
        #expect(error?.mayHaveBeenApplied == false)
        #expect(ContinuousClock.now - started < .seconds(2))
    }
}
