import Foundation
import ObservatoryClient
import ObservatoryServer
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryCommandLine

/// `observatory history KEY|PREFIX [--author NAME] [--limit N] [--newest-first]`:
/// its arguments, and one change a line with its local time and author.
@Suite(.timeLimit(.minutes(1))) struct HistoryCommandTests {
    private func run(_ arguments: [String], port: Int) async -> (CommandLineExitCode, CommandLineToolTests.Capture) {
        let capture = CommandLineToolTests.Capture()
        let code = await CommandLineTool.run(arguments: arguments + ["--port", String(port)], output: capture.output)
        return (code, capture)
    }

    @Test func aTrailingStarOrDotMeansAPrefixAndTheOptionsAreRead() throws {
        #expect(try CommandLineArguments.parse(["history", "door.locked"]).command == .history(.key("door.locked")))
        #expect(try CommandLineArguments.parse(["history", "door."]).command == .history(.prefix("door.")))
        #expect(try CommandLineArguments.parse(["history", "door.*"]).command == .history(.prefix("door.")))
        #expect(try CommandLineArguments.parse(["history", "*"]).command == .history(.prefix("")))
        let full = try CommandLineArguments.parse(
            ["history", "door.locked", "--author", "alice", "--limit=5", "--newest-first"])
        #expect(full.command == .history(.key("door.locked"), author: "alice", limit: 5, newestFirst: true))
    }

    @Test(arguments: [
        ["history"], ["history", "a", "b"], ["history", "a", "--limit", "0"], ["history", "a", "--limit", "1001"],
        ["history", "a", "--limit", "x"], ["history", "a", "--newest-first=yes"], ["get", "a", "--author", "bob"],
        ["history", "a*b"],
    ])
    func mistakesAreUsageErrors(_ arguments: [String]) {
        #expect(throws: CommandLineUsageError.self) { try CommandLineArguments.parse(arguments) }
    }

    @Test func aChangeLineHasItsTimeKeyValuesAuthorAndVersion() throws {
        let change = HistoryChange<JSONValue>(
            event: .update(key: "sky.color", old: "blue", new: "red", version: 12, author: "alice", session: "s3"),
            at: 1_764_302_523_123)
        let entry = try HistoryEntry<JSONValue>(change)
        let utc = try #require(TimeZone(identifier: "UTC"))
        #expect(
            ChangeFormatter.line(for: entry, timeZone: utc)
                == #"2025-11-28 04:02:03.123 sky.color "blue" → "red" by alice (v12)"#)
        let expired = try HistoryEntry<JSONValue>(
            HistoryChange(
                event: .delete(key: "k", old: 1, version: 13, author: "bob", session: "s4", reason: "expired"), at: 0))
        #expect(
            ChangeFormatter.line(for: expired, timeZone: utc) == "1970-01-01 00:00:00.000 k 1 → (expired) by bob (v13)")
    }

    @Test func historyPrintsOneChangeALineFilteredAndNewestFirst() async throws {
        let server = try TestServer()
        defer { server.stop() }
        _ = await run(["set", "door.locked", "true", "--name", "alice"], port: server.port)
        _ = await run(["set", "door.locked", "false", "--name", "bob"], port: server.port)
        _ = await run(["set", "door.open", "1", "--name", "alice"], port: server.port)

        let (code, all) = await run(["history", "door."], port: server.port)
        #expect(code == .success)
        #expect(all.out.count == 3, "\(all.out)")
        #expect(all.out.first?.hasSuffix(#"door.locked (none) → true by alice (v1)"#) == true, "\(all.out)")
        let (_, mine) = await run(["history", "door.locked", "--author", "bob"], port: server.port)
        #expect(mine.out.count == 1 && mine.out.first?.hasSuffix("true → false by bob (v2)") == true, "\(mine.out)")
        let (_, newest) = await run(["history", "door.*", "--newest-first", "--limit", "1"], port: server.port)
        #expect(newest.out.count == 1 && newest.out.first?.contains("door.open") == true, "\(newest.out)")
        #expect(newest.err.contains { $0.contains("--limit") }, "says that more are held: \(newest.err)")
    }
}
