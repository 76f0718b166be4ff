import Foundation
import Observatory
import ObservatoryServer
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryCommandLine

/// `observatory set KEY VALUE --ttl SECONDS`: an expiring key from the command line.
@Suite(.timeLimit(.minutes(1))) struct CommandLineTTLTests {
    @Test func ttlGoesWithSetAsWholeSecondsFromOneToAYear() throws {
        #expect(
            try CommandLineArguments.parse(["set", "k", "1", "--ttl", "30"]).command
                == .set(key: "k", value: 1, ttl: 30))
        #expect(
            try CommandLineArguments.parse(["set", "k", "1", "--ttl=5", "--ephemeral"]).command
                == .set(key: "k", value: 1, sessionBound: true, ttl: 5))
        for bad in ["0", "-1", "31536001", "1.5", "soon"] {
            #expect(throws: CommandLineUsageError.self, "--ttl \(bad)") {
                try CommandLineArguments.parse(["set", "k", "1", "--ttl", bad])
            }
        }
        #expect(throws: CommandLineUsageError.self) { try CommandLineArguments.parse(["get", "k", "--ttl", "5"]) }
    }

    @Test func setWithTTLWritesAnExpiringKey() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let lines = Locked<[String]>([])
        let output = CommandLineOutput(
            standardOutput: { line in lines.withLock { $0.append(line) } }, standardError: { _ in })
        let code = await CommandLineTool.run(
            arguments: ["set", "door.open", "true", "--ttl", "30", "--port", String(server.port)], output: output)
        #expect(code == .success)
        #expect(lines.withLock { $0 }.first?.hasPrefix("door.open = true (v") == true)
        #expect(server.server.store.get("door.open")?.expiry?.seconds == 30)
    }

    @Test func theHelpOfSetNamesTTL() {
        #expect(CommandLineHelp.usage(of: "set")?.contains("--ttl SECONDS") == true)
    }
}
