import Observatory
import ObservatoryClient
import ObservatoryServer
import ObservatoryWire
import Testing

@testable import ObservatoryCommandLine

@Suite struct CommandLineConveniencesTests {
    @Test func versionIsTheDaemonsReleaseAndWinsOverEverything() throws {
        #expect(try CommandLineArguments.parse(["--version"]).command == .version)
        #expect(try CommandLineArguments.parse(["get", "k", "--version", "--port", "x"]).command == .version)
        #expect(CommandLineHelp.version.hasSuffix(Server.version.split(separator: " ").last.map(String.init) ?? "?"))
    }

    @Test func everyCommandHasItsOwnHelpBothWays() throws {
        for name in ["get", "set", "delete", "list", "watch", "ping", "help"] {
            #expect(try CommandLineArguments.parse(["help", name]).command == .commandHelp(name))
            #expect(try CommandLineArguments.parse([name, "--help"]).command == .commandHelp(name))
            #expect(CommandLineHelp.usage(of: name)?.hasPrefix("usage: observatory \(name)") == true)
        }
        #expect(try CommandLineArguments.parse(["help"]).command == .help)
        #expect(try CommandLineArguments.parse(["set", "--port", "x", "--help"]).command == .commandHelp("set"))
        #expect(throws: CommandLineUsageError("no help for 'fly': there is no such command")) {
            try CommandLineArguments.parse(["help", "fly"])
        }
    }

    @Test func helpForSetSaysHowToReadLargeValuesAndStoreADash() {
        let help = CommandLineHelp.usage(of: "set") ?? ""
        #expect(help.contains("read VALUE (JSON) from standard input"))
        #expect(help.contains("@PATH"))
        #expect(help.contains("'\"-\"'"))
    }

    @Test func theEnvironmentNamesTheServerUnlessFlagsDo() throws {
        let environment = ["OBSERVATORY_HOST": "db.local", "OBSERVATORY_PORT": "7080"]
        let fromEnvironment = try CommandLineArguments.parse(["ping"], environment: environment)
        #expect(fromEnvironment.endpoints == [Endpoint(host: "db.local", port: 7080)])
        let fromFlags = try CommandLineArguments.parse(
            ["ping", "--host", "a", "--port", "1"], environment: environment)
        #expect(fromFlags.endpoints == [Endpoint(host: "a", port: 1)])
        let servers = try CommandLineArguments.parse(
            ["ping"], environment: ["OBSERVATORY_SERVERS": "a:7071,b:7072", "OBSERVATORY_HOST": "c"])
        #expect(servers.endpoints == [Endpoint(host: "a", port: 7071), Endpoint(host: "b", port: 7072)])
    }

    @Test func aBadVariableIsAUsageErrorNamingIt() throws {
        #expect(throws: CommandLineUsageError("OBSERVATORY_PORT must be a number from 1 to 65535, not 'x'")) {
            try CommandLineArguments.parse(["ping"], environment: ["OBSERVATORY_PORT": "x"])
        }
        #expect {
            try CommandLineArguments.parse(["ping"], environment: ["OBSERVATORY_HOST": "a:1,b:2"])
        } throws: { error in
            (error as? CommandLineUsageError)?.message.contains("put a list of servers in OBSERVATORY_SERVERS") == true
        }
        #expect(
            try CommandLineArguments.parse(["--version"], environment: ["OBSERVATORY_PORT": "x"]).command == .version)
    }

    @Test func aUsageErrorPointsToTheCommandsOwnHelp() async {
        let errors = Locked<[String]>([])
        let output = CommandLineOutput(
            standardOutput: { _ in }, standardError: { line in errors.withLock { $0.append(line) } })
        #expect(await CommandLineTool.run(arguments: ["set", "k", "tru"], output: output) == .usage)
        #expect(errors.withLock { $0.last } == "Run 'observatory help set' for its usage.")
    }

    @Test func aWatchEndedByTheServerSaysSoInAWatchsWords() {
        let message = CommandLineTool.message(
            for: .connectionLost(.serverShutdown), of: .watch(.prefix("sky.")))
        #expect(message.hasPrefix("the watch ended: the server shut down."))
        #expect(!message.contains("may or may not"))
        #expect(
            CommandLineTool.message(for: .connectionLost(.serverShutdown), of: .get(key: "k")).contains(
                "may or may not"))
    }
}
