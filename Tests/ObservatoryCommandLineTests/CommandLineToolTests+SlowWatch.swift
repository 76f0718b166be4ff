import ObservatoryServer
import ObservatoryTestSupport
import Testing

@testable import ObservatoryCommandLine

extension CommandLineToolTests {
    @Test func watchWithSlowCloseResumesByItselfAfterASlowConsumerCloseAndMissesNothing() async throws {
        let server = try TestServer(
            configuration: TestServer.inMemoryConfiguration { $0.limits.maxQueuedBytes = 16 * 1_024 })
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        let (watch, capture) = started(["watch", "k.*", "--slow", "close"], port: server.port)
        #expect(await eventually { capture.err.first?.hasPrefix("watching k.* on 127.0.0.1:") == true })
        // An event larger than the whole queue never fits: the server closes the watch's connection.
        let big = String(repeating: "x", count: 20 * 1_024)
        let first = try await alice.set("k.a", big).version
        try await alice.set("k.a", "small")
        #expect(await eventually { capture.out.count == 2 }, "\(capture.err)")
        #expect(capture.out.first?.hasSuffix("by alice (v\(first))") == true)
        #expect(capture.out.last?.hasPrefix("k.a \"\(big)\" → \"small\" by alice (v\(first + 1))") == true)
        #expect(capture.err.contains("the server closed the connection: this watch fell behind (slow_consumer)"))
        #expect(capture.err.contains("resumed k.* after revision \(first - 1)"), "\(capture.err)")
        watch.cancel()
        #expect(await watch.value == .success)
    }
}
