import Foundation
import ObservatoryServer
import Testing

@testable import ObservatoryDaemon

@Suite struct ConfigurationOverridesTests {
    private let file = #"{"host":"10.0.0.1","port":1000,"logLevel":"warning"}"#

    private func resolve(flags: [String], environment: [String: String]) throws -> ServerConfiguration {
        guard case .run(let overrides) = try DaemonCommand.parse(flags) else {
            Issue.record("expected a run command")
            return ServerConfiguration()
        }
        let file = self.file
        return try ServerConfiguration.resolve(
            flags: overrides, environment: ConfigurationOverrides(environment: environment),
            readFile: { path in
                guard path == "my.json" else { throw CocoaError(.fileNoSuchFile) }
                return Data(file.utf8)
            })
    }

    @Test func nothingGivenMeansDefaults() throws {
        #expect(try resolve(flags: [], environment: [:]) == ServerConfiguration())
    }

    @Test func fileOverridesDefaults() throws {
        let configuration = try resolve(flags: ["--config", "my.json"], environment: [:])
        #expect(configuration.host == "10.0.0.1")
        #expect(configuration.port == 1000)
        #expect(configuration.logLevel == .warning)
    }

    @Test func environmentNamesTheFileAndOverridesIt() throws {
        let configuration = try resolve(
            flags: [], environment: ["OBSERVATORY_CONFIG": "my.json", "OBSERVATORY_PORT": "2000"])
        #expect(configuration.host == "10.0.0.1")
        #expect(configuration.port == 2000)
    }

    @Test func flagOverridesEnvironmentAndFile() throws {
        let configuration = try resolve(
            flags: ["--config", "my.json", "--port=3000", "--log-level", "debug", "--fsync", "always"],
            environment: ["OBSERVATORY_PORT": "2000", "OBSERVATORY_LOG_LEVEL": "error", "OBSERVATORY_DATA": "/d"])
        #expect(configuration.port == 3000)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.fsync == .always)
        #expect(configuration.dataDirectory == "/d")
    }

    @Test func nonNumericPortNamesItsSource() {
        #expect(throws: ConfigurationError.wrongType(setting: "port (OBSERVATORY_PORT)", expected: "an integer")) {
            try resolve(flags: [], environment: ["OBSERVATORY_PORT": "http"])
        }
    }

    @Test func overriddenPortIsStillRangeChecked() {
        #expect(throws: ConfigurationError.outOfRange(setting: "port", value: "65536", allowed: "0...65535")) {
            try resolve(flags: ["--port", "65536"], environment: [:])
        }
    }

    @Test func badFsyncFlagNamesTheFlag() {
        let expected = ConfigurationError.invalidValue(
            setting: "fsync (--fsync)", value: "never", allowed: "always, everysec, none")
        #expect(throws: expected) { try resolve(flags: ["--fsync", "never"], environment: [:]) }
    }

    @Test func missingConfigFileIsUnreadable() {
        #expect {
            try resolve(flags: ["--config", "missing.json"], environment: [:])
        } throws: { error in
            guard case .unreadableFile(let path, _) = error as? ConfigurationError else { return false }
            return path == "missing.json"
        }
    }

    @Test func theTokensFileAddsTokensAndItsVariableNamesIt() throws {
        let files: [String: String] = [
            "c.json": #"{"auth":{"tokensFile":"from-config.json"}}"#,
            "from-config.json": #"[{"token":"file-token-0123456789","author":"filed","read":["*"]}]"#,
            "from-env.json": #"[{"token":"env-token-0123456789","author":"env","write":["x.*"]}]"#,
            "bad.json": #"{"token":"not an array"}"#,
        ]
        let read: (String) throws -> Data = { path in
            guard let text = files[path] else { throw CocoaError(.fileNoSuchFile) }
            return Data(text.utf8)
        }
        var flags = ConfigurationOverrides()
        flags.configPath = .init("c.json", source: "--config")
        let fromConfig = try ServerConfiguration.resolve(
            flags: flags, environment: ConfigurationOverrides(), readFile: read)
        #expect(fromConfig.auth.tokens.map(\.author) == ["filed"])
        #expect(fromConfig.requiresAuthentication)
        let fromEnvironment = try ServerConfiguration.resolve(
            flags: flags,
            environment: ConfigurationOverrides(environment: ["OBSERVATORY_TOKENS_FILE": "from-env.json"]),
            readFile: read)
        #expect(fromEnvironment.auth.tokens.map(\.author) == ["env"])
        #expect {
            try ServerConfiguration.resolve(
                flags: flags, environment: ConfigurationOverrides(environment: ["OBSERVATORY_TOKENS_FILE": "bad.json"]),
                readFile: read)
        } throws: { error in
            guard case .malformedFile(let path, _)? = error as? ConfigurationError else { return false }
            return path == "bad.json"
        }
    }
}
