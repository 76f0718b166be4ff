import Foundation
import Observatory
import ObservatoryClient
import ObservatoryTestSupport
import Testing

/// Runs the built `observatory` binary as a separate process, as a user
/// does, against a real server: its output and its exit codes.
@Suite struct CommandLineProcessTests {
    /// Why a run could not be completed.
    private struct RunFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// What one run of the CLI printed and returned.
    private struct Outcome {
        let status: Int32
        let output: String
        let errors: String
    }

    /// The `observatory` executable built next to this test bundle.
    private func cliURL() throws -> URL {
        try BuiltExecutable.url(named: "observatory")
    }

    /// Runs the CLI to completion, at most 30 s.
    private func run(_ arguments: [String]) throws -> Outcome {
        let process = Process()
        process.executableURL = try cliURL()
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        if exited.wait(timeout: .now() + 30) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw RunFailure(description: "observatory \(arguments) did not exit within 30 s")
        }
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus,
            output: String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            errors: String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }

    /// Presence with a member in another process: `observatory set --ephemeral`
    /// announces it, and SIGKILL takes it away; the others see it leave, authored
    /// by the member, as soon as its socket closes.
    @Test func aMemberKilledWithSIGKILLLeavesTheOthersPresence() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        let lobby = try await alice.presence(under: "chat.lobby.online.", as: "alice")
        let seen = Recorder<Update<Set<String>>>()
        seen.record(lobby.members)

        let process = Process()
        process.executableURL = try cliURL()
        process.arguments = [
            "set", "chat.lobby.online.bob", "true", "--ephemeral", "--name", "bob", "--port", "\(server.port)",
        ]
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        #expect(await eventually { lobby.members.value == ["alice", "bob"] })
        kill(process.processIdentifier, SIGKILL)
        // The recorder, not the value: a Var's value changes just before its observers hear of it.
        #expect(await eventually { seen.count == 2 })
        #expect(lobby.members.value == ["alice"])
        #expect(seen.messages.map(\.new) == [["alice", "bob"], ["alice"]])
        #expect(seen.remoteAuthors.map { $0?.name } == ["bob", "bob"], "joined and left by bob")
    }

    @Test func commandsPrintTheirResultsAndExitZero() throws {
        let server = try TestServer()
        defer { server.stop() }
        let port = ["--port", "\(server.port)"]

        let set = try run(port + ["set", "sky.color", "red", "--name", "alice"])
        let get = try run(port + ["get", "sky.color"])
        let list = try run(port + ["list", "sky."])
        let delete = try run(port + ["delete", "sky.color"])

        #expect(set.status == 0)
        #expect(set.output == "sky.color = \"red\" (v1)\n")
        #expect(get.status == 0)
        #expect(get.output == "\"red\"\n")
        #expect(list.output == "sky.color (v1)\n")
        #expect(delete.status == 0)
        #expect(delete.output == "sky.color deleted (v2)\n")
    }

    @Test func refusalsUsageErrorsAndUnreachableServersHaveTheirExitCodes() throws {
        let server = try TestServer()
        defer { server.stop() }

        let missing = try run(["--port", "\(server.port)", "get", "nope"])
        let usage = try run(["--port", "\(server.port)", "frobnicate"])
        // Port 1 is privileged and unused here: the connection is refused.
        let unreachable = try run(["--port", "1", "get", "sky.color"])

        #expect(missing.status == 1)
        #expect(missing.errors.contains("not_found"))
        #expect(usage.status == 2)
        #expect(usage.errors.contains("unknown command 'frobnicate'"))
        #expect(unreachable.status == 3)
        #expect(unreachable.errors.contains("cannot reach 127.0.0.1:1"))
    }
}
