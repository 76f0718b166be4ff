import ObservatoryServer
import Testing

@testable import ObservatoryDaemon

@Suite struct DaemonCommandTests {
    @Test func noArgumentsRunsWithNoOverrides() throws {
        #expect(try DaemonCommand.parse([]) == .run(ConfigurationOverrides()))
    }

    @Test func helpAndVersionWinOverOtherFlags() throws {
        #expect(try DaemonCommand.parse(["--port", "1", "--help"]) == .help)
        #expect(try DaemonCommand.parse(["--version", "--bogus"]) == .version)
    }

    @Test func everyFlagTakesAValueSeparatelyOrAfterEquals() throws {
        let command = try DaemonCommand.parse([
            "--config", "c.json", "--host=::1", "--port", "0", "--data", "/tmp/d", "--fsync=everysec",
            "--log-level", "debug",
        ])
        var expected = ConfigurationOverrides()
        expected.configPath = .init("c.json", source: "--config")
        expected.host = .init("::1", source: "--host")
        expected.port = .init("0", source: "--port")
        expected.dataDirectory = .init("/tmp/d", source: "--data")
        expected.fsync = .init("everysec", source: "--fsync")
        expected.logLevel = .init("debug", source: "--log-level")
        #expect(command == .run(expected))
    }

    @Test func unknownFlagIsAnError() {
        #expect(throws: ConfigurationError.unknownFlag("--prot")) { try DaemonCommand.parse(["--prot", "1"]) }
    }

    @Test func flagWithoutValueIsAnError() {
        #expect(throws: ConfigurationError.missingFlagValue(flag: "--port")) { try DaemonCommand.parse(["--port"]) }
    }

    @Test func usageMentionsEveryFlag() {
        for flag in ["--config", "--host", "--port", "--data", "--fsync", "--log-level", "--help", "--version"] {
            #expect(DaemonCommand.usage.contains(flag))
        }
    }
}
