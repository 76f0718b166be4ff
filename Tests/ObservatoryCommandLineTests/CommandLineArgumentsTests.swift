import ObservatoryClient
import Testing

@testable import ObservatoryCommandLine

@Suite struct CommandLineArgumentsTests {
    @Test func defaultsAreLoopbackPort7070WithoutTokenOrJSON() throws {
        let arguments = try CommandLineArguments.parse(["get", "sky.color"])
        #expect(arguments.host == "127.0.0.1")
        #expect(arguments.port == 7070)
        #expect(arguments.token == nil)
        #expect(arguments.printsFrames == false)
        #expect(arguments.name == "observatory-cli")
        #expect(arguments.command == .get(key: "sky.color"))
    }

    @Test func everyCommandParses() throws {
        #expect(
            try CommandLineArguments.parse(["set", "a.b", "{\"x\": 1}"]).command == .set(key: "a.b", value: ["x": 1]))
        #expect(try CommandLineArguments.parse(["delete", "a.b"]).command == .delete(key: "a.b"))
        #expect(try CommandLineArguments.parse(["list"]).command == .list(prefix: ""))
        #expect(try CommandLineArguments.parse(["list", "kitchen."]).command == .list(prefix: "kitchen."))
        #expect(try CommandLineArguments.parse(["watch", "sky.color"]).command == .watch(.key("sky.color")))
        #expect(try CommandLineArguments.parse(["watch", "sky.*"]).command == .watch(.prefix("sky.")))
        #expect(try CommandLineArguments.parse(["watch", "*"]).command == .watch(.prefix("")))
    }

    @Test func optionsWorkAnywhereInBothSpellings() throws {
        let arguments = try CommandLineArguments.parse([
            "--host", "example.org", "get", "k", "--port=7071", "--token=s3cret", "--json", "--name", "alice",
        ])
        #expect(arguments.name == "alice")
        #expect(arguments.host == "example.org")
        #expect(arguments.port == 7071)
        #expect(arguments.token == "s3cret")
        #expect(arguments.printsFrames)
        #expect(arguments.command == .get(key: "k"))
    }

    @Test func singleDashValueIsNotAnOption() throws {
        #expect(try CommandLineArguments.parse(["set", "t", "-5"]).command == .set(key: "t", value: -5))
    }

    @Test func doubleDashEndsOptions() throws {
        #expect(
            try CommandLineArguments.parse(["set", "--", "t", "--json"]).command == .set(key: "t", value: "--json"))
    }

    @Test(
        arguments: [
            ("red", JSONValue.string("red")),
            ("hello world", .string("hello world")),
            ("42", .integer(42)),
            ("2.5", .double(2.5)),
            ("true", .bool(true)),
            ("null", .null),
            ("\"quoted\"", .string("quoted")),
            ("[1,\"a\"]", .array([1, "a"])),
            ("", .string("")),
        ] as [(String, JSONValue)])
    func valueIsJSONOrABareWordString(text: String, expected: JSONValue) throws {
        #expect(try CommandLineArguments.parse(["set", "k", text]).command == .set(key: "k", value: expected))
    }

    @Test func brokenJSONIsAUsageErrorNotAString() {
        #expect(throws: CommandLineUsageError.self) { try CommandLineArguments.parse(["set", "k", "{\"a\":"]) }
        #expect(throws: CommandLineUsageError.self) { try CommandLineArguments.parse(["set", "k", "[1,"]) }
    }

    @Test func helpWinsOverEverythingElse() throws {
        #expect(try CommandLineArguments.parse(["get", "--help"]).command == .commandHelp("get"))
        #expect(try CommandLineArguments.parse(["-h"]).command == .help)
    }

    @Test(
        arguments: [
            ([], "missing command"),
            (["fly"], "unknown command 'fly'"),
            (["get"], "get: missing KEY; usage: observatory get KEY"),
            (["get", "a", "b"], "get: too many arguments (2); usage: observatory get KEY"),
            (["set", "a"], "set takes KEY and VALUE (quote a VALUE with spaces), got 1 arguments"),
            (["list", "a", "b"], "list takes at most one PATTERN, got 2 arguments"),
            (["watch"], "watch: missing KEY or PREFIX*; usage: observatory watch KEY or PREFIX*"),
            (["get", "k", "--port", "0"], "--port must be a number from 1 to 65535, not '0'"),
            (["get", "k", "--port", "http"], "--port must be a number from 1 to 65535, not 'http'"),
            (["get", "k", "--port"], "missing value for --port"),
            (["get", "k", "--host="], "--host must not be empty"),
            (["get", "k", "--json=yes"], "--json takes no value"),
            (["get", "k", "--verbose"], "unknown option --verbose"),
        ] as [([String], String)])
    func badCommandLineGivesAnActionableMessage(arguments: [String], message: String) {
        #expect(throws: CommandLineUsageError(message)) { try CommandLineArguments.parse(arguments) }
    }
}

@Suite struct CommandLinePingArgumentsTests {
    @Test func pingTakesNoArguments() throws {
        #expect(try CommandLineArguments.parse(["ping"]).command == .ping)
        #expect(try CommandLineArguments.parse(["ping", "--port", "7071"]).port == 7071)
        #expect(throws: CommandLineUsageError.self) { try CommandLineArguments.parse(["ping", "extra"]) }
    }

    @Test func sessionBoundGoesWithSetAndFromWithWatch() throws {
        #expect(
            try CommandLineArguments.parse(["set", "k", "1", "--ephemeral"]).command
                == .set(key: "k", value: 1, sessionBound: true))
        #expect(
            try CommandLineArguments.parse(["watch", "room.*", "--from", "42"]).command
                == .watch(.prefix("room."), fromRevision: 42))
        #expect(throws: CommandLineUsageError.self) { try CommandLineArguments.parse(["get", "k", "--ephemeral"]) }
        #expect(throws: CommandLineUsageError.self) {
            try CommandLineArguments.parse(["set", "k", "1", "--from", "3"])
        }
        #expect(throws: CommandLineUsageError.self) { try CommandLineArguments.parse(["watch", "k", "--from", "-1"]) }
    }

    @Test func slowGoesWithWatchAndIsCloseOrCoalesce() throws {
        #expect(
            try CommandLineArguments.parse(["watch", "room.*", "--slow", "close", "--from", "4"]).command
                == .watch(.prefix("room."), fromRevision: 4, slow: .close))
        #expect(try CommandLineArguments.parse(["watch", "k", "--slow=coalesce"]).command == .watch(.key("k")))
        #expect(throws: CommandLineUsageError("--slow must be close or coalesce, not 'drop'")) {
            try CommandLineArguments.parse(["watch", "k", "--slow", "drop"])
        }
        #expect(throws: CommandLineUsageError("--slow only goes with watch")) {
            try CommandLineArguments.parse(["get", "k", "--slow", "close"])
        }
    }

    @Test func severalHostsAreSeveralEndpointsInOrder() throws {
        let arguments = try CommandLineArguments.parse(["--host", "a:7070,b:7071,c", "--port", "7072", "ping"])
        #expect(
            arguments.endpoints == [
                Endpoint(host: "a", port: 7070), Endpoint(host: "b", port: 7071), Endpoint(host: "c", port: 7072),
            ])
    }

    @Test func aHostWithABadPortIsAUsageError() {
        #expect(throws: CommandLineUsageError.self) {
            try CommandLineArguments.parse(["--host", "a:7070,b:x", "ping"])
        }
        #expect(throws: CommandLineUsageError.self) { try CommandLineArguments.parse(["--host", "a:7070,", "ping"]) }
    }
}
