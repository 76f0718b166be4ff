import ObservatoryClient
import ObservatoryServer
import ObservatoryTestSupport
import ObservatoryWire
import Testing

/// A watcher that asks for `.close` is closed when it cannot keep up, and the
/// client resumes by itself from the error's revision: its stream misses nothing.
@Suite(.timeLimit(.minutes(1))) struct SlowConsumerEndToEndTests {
    @Test func aClosingWatcherSeesEveryValueAcrossSlowConsumerCloses() async throws {
        let server = try TestServer(
            configuration: TestServer.inMemoryConfiguration { $0.limits.maxQueuedBytes = 16 * 1_024 })
        defer { server.stop() }
        let writer = try await server.client("writer")
        let watcher = try await server.client("watcher")
        defer {
            writer.close()
            watcher.close()
        }
        let changes = try await watcher.changes(of: .prefix("k."), slow: .close)
        // An event larger than the whole queue never fits: each closes the watcher's
        // connection, and only the resume (whose replay may exceed the limit) brings it.
        let big = String(repeating: "x", count: 20 * 1_024)
        var written: [Int64] = []
        for round in 0..<6 {
            let value = round % 2 == 0 ? "\(round)" + big : "\(round)"
            written.append(try await writer.set("k.\(round % 3)", value).version)
        }
        var received: [Int64] = []
        for await change in changes {
            received.append(change.version)
            if received.count == written.count { break }
        }
        #expect(received == written)
    }
}
