import Foundation
import Observatory
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryClient

/// The offline store across real processes: a client killed with SIGKILL after
/// an offline write, started again with the server up.
@Suite(.timeLimit(.minutes(1))) struct OfflineProcessEndToEndTests {
    /// A running `OfflineWriter` and what it printed so far.
    private final class Writer: Sendable {
        let process: Process
        private let output = Locked("")

        init(directory: String, port: Int, key: String, value: String? = nil) throws {
            process = Process()
            process.executableURL = try Self.executable()
            process.arguments = [directory, String(port), key] + (value.map { [$0] } ?? [])
            let pipe = Pipe()
            process.standardOutput = pipe
            let output = output
            pipe.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                output.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            try process.run()
        }

        /// Waits until the process printed `line`.
        func waitFor(_ line: String) async throws {
            let printed = await eventually(timeout: .seconds(20)) { output.withLock { $0.contains(line + "\n") } }
            if !printed { throw TestFailure(description: "no '\(line)' from OfflineWriter; got: \(text)") }
        }

        var text: String { output.withLock { $0 } }

        /// Kills the process by its pid, without a chance to save anything more.
        func kill() {
            guard process.isRunning else { return }
            _ = Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        private static func executable() throws -> URL {
            try BuiltExecutable.url(named: "OfflineWriter")
        }
    }

    @Test func aWriteMadeOfflineBeforeAKillShowsAtOnceAfterARestartAndIsAppliedOnce() async throws {
        let directory = try TemporaryDirectory()
        let storePath = directory.path(of: "observatory-client.store")

        // Offline: the write is saved, then the process dies without warning.
        let refusing = try RefusingPort()
        let offline = try Writer(directory: directory.path, port: refusing.port, key: "door.locked", value: "yes")
        defer { offline.kill() }
        try await offline.waitFor("shown none")
        try await offline.waitFor("written")
        offline.kill()
        // The store as a kill after the server applied the write, before its acknowledgement was saved, would leave it.
        let unacknowledged = try Data(contentsOf: URL(fileURLWithPath: storePath))

        let server = try TestServer()
        defer { server.stop() }
        let observer = try await server.client("observer")
        defer { observer.close() }
        let changes = try await observer.changes(of: .key("door.locked"))
        let seen = Locked<[RemoteChange]>([])
        let reader = Task { for await change in changes { seen.withLock { $0.append(change) } } }
        defer { reader.cancel() }

        // Restarted with the server up: the kept value shows at once, and the write is sent.
        let restarted = try Writer(directory: directory.path, port: server.port, key: "door.locked")
        defer { restarted.kill() }
        try await restarted.waitFor("shown yes")
        #expect(await eventually { seen.withLock { $0.count } == 1 })
        restarted.kill()

        // Someone changes the key; then the client starts once more from the store that still holds the
        // write: the write is sent again with the same id and not applied again, so the change stays.
        let applied = seen.withLock { $0.map(\.version) }
        let later = try await observer.set("door.locked", "no")
        try unacknowledged.write(to: URL(fileURLWithPath: storePath))
        let again = try Writer(directory: directory.path, port: server.port, key: "door.locked")
        defer { again.kill() }
        try await again.waitFor("shown yes")
        let acknowledged = await eventually {
            guard let data = FileManager.default.contents(atPath: storePath),
                case .success(let entries) = OfflineStoreFormat.decode(Array(data))
            else { return false }
            return entries.contains { $0.key == "door.locked" && $0.write == nil }
        }
        #expect(acknowledged, "the resent write was acknowledged")
        again.kill()

        let entry = try await observer.get("door.locked")
        #expect(try entry.value.decode(String.self) == "no")
        #expect(entry.version == later.version)
        #expect(seen.withLock { $0.map(\.version) } == applied + [later.version], "the write was applied once")
        #expect(seen.withLock { $0.first?.author.name } == "offline-writer")
    }
}
