import Foundation
import Observatory
import ObservatoryClient
import ObservatoryServer
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryCommandLine

/// Values past the shell's limit on one argument go in through a file or standard
/// input, and `set` does not print them back whole.
@Suite(.timeLimit(.minutes(1))) struct CommandLineLargeValueTests {
    @Test func aValueOfHundredsOfKilobytesIsSetFromAFileAndPreviewed() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let big = String(repeating: "x", count: 300_000)
        let input = CommandLineInput(
            readStandardInput: { [] }, readFile: { _ in Array("\"\(big)\"".utf8) })
        let out = Locked<[String]>([])
        let output = CommandLineOutput(
            standardOutput: { line in out.withLock { $0.append(line) } }, standardError: { _ in })
        let code = await CommandLineTool.run(
            arguments: ["set", "big", "@big.json", "--port", String(server.port)], input: input, output: output)
        #expect(code == .success)
        #expect(out.withLock { $0 } == ["big = \"" + String(repeating: "x", count: 39) + "… (300002 bytes) (v1)"])
        let reader = try await server.client("reader")
        defer { reader.close() }
        let reply = try await reader.send(.get(key: "big"))
        #expect(reply["value"] == .string(big))
    }

    @Test func theEnvironmentsPortIsTheServersPort() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let out = Locked<[String]>([])
        let output = CommandLineOutput(
            standardOutput: { line in out.withLock { $0.append(line) } }, standardError: { _ in })
        let code = await CommandLineTool.run(
            arguments: ["set", "k", "1"], environment: ["OBSERVATORY_PORT": String(server.port)], output: output)
        #expect(code == .success)
        #expect(out.withLock { $0 } == ["k = 1 (v1)"])
    }
}
