import Foundation
import Observatory
import ObservatoryClient
import ObservatoryServer
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryCommandLine

@Suite(.timeLimit(.minutes(1))) struct CommandLineToolTests {
    /// Collects what the tool prints.
    final class Capture: Sendable {
        private let lines = Locked<(out: [String], err: [String])>(([], []))
        var output: CommandLineOutput {
            CommandLineOutput(
                standardOutput: { line in self.lines.withLock { $0.out.append(line) } },
                standardError: { line in self.lines.withLock { $0.err.append(line) } }
            )
        }
        var out: [String] { lines.withLock { $0.out } }
        var err: [String] { lines.withLock { $0.err } }
    }

    private func run(_ arguments: [String], port: Int) async -> (CommandLineExitCode, Capture) {
        let capture = Capture()
        let code = await CommandLineTool.run(arguments: arguments + ["--port", String(port)], output: capture.output)
        return (code, capture)
    }

    @Test func pingPrintsServerRevisionAndEpochAndExitsZeroOrThree() async throws {
        let server = try TestServer()
        defer { server.stop() }
        _ = await run(["set", "a", "1"], port: server.port)
        _ = await run(["set", "b", "2"], port: server.port)
        let (code, ping) = await run(["ping"], port: server.port)
        #expect(code == .success)
        #expect(ping.out == ["\(Server.version), revision 2, epoch \(server.server.store.epoch)"], "\(ping.out)")
        let (jsonCode, json) = await run(["ping", "--json"], port: server.port)
        #expect(jsonCode == .success)
        #expect(json.out.first?.contains("\"revision\":2") == true)
        let closed = try RefusingPort()
        defer { withExtendedLifetime(closed) {} }
        let (refusedCode, refused) = await run(["ping"], port: closed.port)
        #expect(refusedCode == .connection)
        #expect(refused.err.first?.contains("cannot reach") == true)
    }

    @Test func setGetListDeletePrintReadableResults() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (setCode, set) = await run(["set", "sky.color", "red"], port: server.port)
        #expect(setCode == .success)
        #expect(set.out.count == 1 && set.out[0].hasPrefix("sky.color = \"red\" (v"))
        let (_, again) = await run(["set", "sky.color", "\"red\""], port: server.port)
        #expect(again.out.first?.hasPrefix("sky.color unchanged (v") == true)
        _ = await run(["set", "sky.cloud", "{\"cover\":0.5}"], port: server.port)

        let (getCode, get) = await run(["get", "sky.cloud"], port: server.port)
        #expect(getCode == .success)
        #expect(get.out == [#"{"cover":0.5}"#])

        let (listCode, list) = await run(["list", "sky."], port: server.port)
        #expect(listCode == .success)
        let listedKeysInOrder =
            list.out.map { $0.components(separatedBy: " ").first ?? "" } == ["sky.cloud", "sky.color"]
        #expect(listedKeysInOrder)

        let (deleteCode, delete) = await run(["delete", "sky.color"], port: server.port)
        #expect(deleteCode == .success)
        #expect(delete.out.first?.hasPrefix("sky.color deleted (v") == true)
    }

    @Test func missingKeyExitsWithOneAndSaysSo() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (getCode, get) = await run(["get", "no.such.key"], port: server.port)
        #expect(getCode == .refused)
        #expect(get.out.isEmpty)
        #expect(get.err.first?.hasPrefix("observatory: not_found") == true)
        let (deleteCode, _) = await run(["delete", "no.such.key"], port: server.port)
        #expect(deleteCode == .refused)
        let (invalidCode, invalid) = await run(["get", "bad key"], port: server.port)
        #expect(invalidCode == .refused)
        #expect(invalid.err.first?.contains("invalid_key") == true)
    }

    @Test func usageErrorsExitWithTwoAndConnectionErrorsWithThree() async throws {
        let capture = Capture()
        #expect(await CommandLineTool.run(arguments: ["fly"], output: capture.output) == .usage)
        #expect(capture.err.first == "observatory: unknown command 'fly'")
        let closed = try RefusingPort()
        defer { withExtendedLifetime(closed) {} }
        let (code, refused) = await run(["get", "k"], port: closed.port)
        #expect(code == .connection)
        #expect(refused.err.first?.contains("cannot reach 127.0.0.1:\(closed.port)") == true)
        #expect(refused.err.first?.contains("Connection refused") == true)
    }

    /// Starts the tool with `arguments` against the server on `port`; it runs
    /// until it ends or its task is cancelled (a `watch`, say).
    func started(_ arguments: [String], port: Int) -> (Task<CommandLineExitCode, Never>, Capture) {
        let capture = Capture()
        let task = Task {
            await CommandLineTool.run(arguments: arguments + ["--port", String(port)], output: capture.output)
        }
        return (task, capture)
    }

    @Test func helpPrintsUsageAndExitsWithZero() async {
        let capture = Capture()
        #expect(await CommandLineTool.run(arguments: ["--help"], output: capture.output) == .success)
        #expect(capture.out.first?.hasPrefix("usage: observatory") == true)
    }

    @Test func jsonPrintsTheServersFrames() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let (_, set) = await run(["--json", "set", "n", "7"], port: server.port)
        let reply = try JSONValue.parse(try #require(set.out.first))
        #expect(reply["ok"] == true)
        #expect(reply["key"] == "n")
        #expect(reply["changed"] == true)
        _ = await run(["set", "n", "8", "--name", "alice"], port: server.port)
        let (_, get) = await run(["get", "n", "--json"], port: server.port)
        let got = try JSONValue.parse(try #require(get.out.first))
        #expect(got["value"] == 8)
        #expect(got["author"] == "alice")
    }

    @Test func watchPrintsEachChangeUntilCancelledThenExitsWithZero() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        try await alice.set("sky.color", "blue")
        let (watch, capture) = started(["watch", "sky.*"], port: server.port)
        #expect(await eventually { capture.err.first?.hasPrefix("watching sky.* on 127.0.0.1:") == true })
        try await alice.set("sky.color", "red")
        try await alice.set("ground.color", "brown")
        try await alice.delete("sky.color")
        #expect(await eventually { capture.out.count == 2 })
        #expect(capture.out[0].hasPrefix("sky.color \"blue\" → \"red\" by alice (v"))
        #expect(capture.out[1].hasPrefix("sky.color \"red\" → (deleted) by alice (v"))
        watch.cancel()
        #expect(await watch.value == .success)
    }

    @Test func watchFromARevisionPrintsTheChangesAfterItFirstAndSaysItResumed() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        for value in 1...3 { try await alice.set("room.topic", value) }
        let (watch, capture) = started(["watch", "room.*", "--from", "1"], port: server.port)
        #expect(await eventually { capture.out.count == 2 })
        #expect(capture.err.first == "resumed room.* after revision 1", "\(capture.err)")
        #expect(capture.out[0].hasPrefix("room.topic 1 → 2 by alice (v2)"), "\(capture.out)")
        #expect(capture.out[1].hasPrefix("room.topic 2 → 3 by alice (v3)"))
        watch.cancel()
        #expect(await watch.value == .success)

        let (refused, future) = started(["watch", "room.*", "--from", "99"], port: server.port)
        #expect(await eventually { future.err.first?.hasPrefix("cannot resume room.* after revision 99") == true })
        refused.cancel()
        #expect(await refused.value == .success)
    }

    @Test func setSessionBoundKeepsTheKeyWhileItRunsAndTheServerDeletesItAfter() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let watcher = try await server.client("watcher")
        defer { watcher.close() }
        let seen = watcher.variable("presence.cli", default: "away")
        let (command, capture) = started(["set", "presence.cli", "here", "--ephemeral"], port: server.port)
        #expect(await eventually { seen.value == "here" })
        #expect(await eventually { capture.err.first?.hasPrefix("keeping presence.cli while this runs") == true })
        command.cancel()
        #expect(await command.value == .success)
        #expect(await eventually { seen.value == "away" }, "deleted when the command's session ended")
    }

    @Test func watchWithJSONPrintsTheEventFrames() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let alice = try await server.client("alice")
        defer { alice.close() }
        let (watch, capture) = started(["watch", "k", "--json"], port: server.port)
        #expect(await eventually { capture.err.first?.hasPrefix("watching k") == true })
        try await alice.set("k", [1, 2] as JSONValue)
        #expect(await eventually { capture.out.count == 1 })
        let event = try JSONValue.parse(try #require(capture.out.first))
        #expect(event["event"] == "update")
        #expect(event["new"] == [1, 2])
        #expect(event["author"] == "alice")
        watch.cancel()
        #expect(await watch.value == .success)
    }

    @Test func watchExitsWithThreeWhenTheServerGoesAway() async throws {
        let server = try TestServer()
        let capture = Capture()
        let watch = Task {
            await CommandLineTool.run(arguments: ["watch", "k", "--port", String(server.port)], output: capture.output)
        }
        #expect(await eventually { capture.err.first?.hasPrefix("watching k") == true })
        server.stop()
        #expect(await watch.value == .connection)
        #expect(capture.err.last?.hasPrefix("observatory: the watch ended: the server shut down.") == true)
    }

    @Test func commandLineMapsServerRefusalsToOneAndConnectionTroubleToThree() {
        #expect(CommandLineTool.exitCode(for: .server(WireError(code: .notFound, message: ""))) == .refused)
        #expect(CommandLineTool.exitCode(for: .server(WireError(code: .conflict, message: ""))) == .refused)
        #expect(CommandLineTool.exitCode(for: .connectionFailed("refused")) == .connection)
        #expect(CommandLineTool.exitCode(for: .connectionLost(.closedByServer)) == .connection)
        #expect(CommandLineTool.exitCode(for: .timedOut("slow")) == .connection)
    }

    @Test func severalHostsAreTriedInTurn() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let closed = try RefusingPort()
        defer { withExtendedLifetime(closed) {} }
        let capture = Capture()
        let hosts = "127.0.0.1:\(closed.port),127.0.0.1:\(server.port)"
        let code = await CommandLineTool.run(arguments: ["--host", hosts, "set", "a", "1"], output: capture.output)
        #expect(code == .success)
        #expect(capture.out.first?.hasPrefix("a = 1 (v") == true, "\(capture.out) \(capture.err)")
    }
}
