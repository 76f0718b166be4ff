import Foundation
import ObservatoryLogging
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// Tokens compared by bytes in constant time, failed hellos logged with the peer,
/// conditional writes needing read access, and warnings about unsafe settings.
@Suite struct AuthenticationHardeningTests {
    private let secret = "s3cret-tok\u{E9}n-long-enough"

    private func context(host: String = "127.0.0.1", tokens: [AccessToken], logger: Logger = .silent) throws
        -> SessionFixture
    {
        try SessionFixture(
            configuration: testConfiguration {
                $0.host = host
                $0.auth.tokens = tokens
            }, logger: logger)
    }

    @Test func tokensMatchByTheirBytesOnly() throws {
        let context = try context(tokens: [AccessToken(token: secret, author: "alice", read: ["*"], write: ["*"])])
        #expect(context.environment.authenticator.accessToken(secret)?.author == "alice")
        // The same characters with "é" as "e" + U+0301: other bytes, no match.
        #expect(context.environment.authenticator.accessToken("s3cret-toke\u{301}n-long-enough") == nil)
        #expect(context.environment.authenticator.accessToken(String(secret.dropLast())) == nil)
        #expect(context.environment.authenticator.accessToken(secret + "x") == nil)
        #expect(Authenticator.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!Authenticator.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!Authenticator.constantTimeEqual([1, 2], [1, 2, 0]))
    }

    @Test func aConditionalWriteNeedsReadAccessToo() throws {
        let context = try context(tokens: [AccessToken(token: secret, author: "writer", read: [], write: ["box.*"])])
        let harness = SessionHarness(fixture: context)
        _ = try harness.send(#"{"op":"hello","token":"\#(secret)"}"#)
        let replies = try harness.send(
            #"{"op":"set","key":"box.a","value":1,"id":1}"#,
            #"{"op":"set","key":"box.a","value":2,"ifVersion":0,"id":2}"#,
            #"{"op":"delete","key":"box.a","ifVersion":1,"id":3}"#,
            #"{"op":"delete","key":"box.a","id":4}"#)
        #expect(replies.map { $0["ok"] } == [true, false, false, true])
        #expect(replies[1]["error"]?["code"] == "forbidden")
        #expect(replies[1]["error"]?["version"] == nil, "a forbidden reply tells nothing about the key")
        #expect(replies[2]["error"]?["code"] == "forbidden")
    }

    @Test func failedHellosAreLoggedAtMostOnceASecond() throws {
        let recording = RecordingLogSink()
        let context = try context(
            tokens: [AccessToken(token: secret, author: "alice", read: ["*"], write: ["*"])],
            logger: Logger(level: .debug, sink: recording))
        for _ in 0..<5 { context.environment.authenticator.logFailedHello(from: "192.0.2.7:5000", "unknown token") }
        let warnings = recording.records.filter { $0.level == .warning }.map(\.message)
        #expect(warnings == ["failed hello from 192.0.2.7:5000: unknown token"])
    }

    @Test func theLogNamesThePeersAddress() throws {
        let recording = RecordingLogSink()
        var configuration = testConfiguration {
            $0.auth.tokens = [AccessToken(token: "a-long-enough-token", author: "alice", read: ["*"], write: ["*"])]
        }
        configuration.host = "127.0.0.1"
        let server = try Server(configuration: configuration, logger: Logger(level: .debug, sink: recording))
        try server.start()
        defer { server.stop() }
        let client = try LineClient(port: server.port)
        #expect(try client.request(#"{"op":"hello","token":"wrong"}"#)["error"]?["code"] == "unauthenticated")
        let warnings = recording.records.filter { $0.level == .warning }.map(\.message)
        #expect(
            warnings.contains { $0.hasPrefix("failed hello from 127.0.0.1:") && $0.hasSuffix("unknown token") },
            "\(warnings)")
    }

    @Test func shortTokensAndOpenListeningBeyondLoopbackAreWarnedAbout() throws {
        let open = try context(host: "0.0.0.0", tokens: [])
        #expect(open.configuration.warnings.count == 1)
        #expect(open.configuration.warnings.first?.contains("without authentication") == true)
        let short = try context(
            host: "0.0.0.0", tokens: [AccessToken(token: "short", author: "bob", read: [], write: [])])
        #expect(short.configuration.warnings == ["the token of bob is 5 bytes; use at least 16 random bytes"])
        #expect(try context(tokens: []).configuration.warnings.isEmpty)
    }
}
