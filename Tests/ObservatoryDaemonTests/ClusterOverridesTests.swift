import Foundation
import ObservatoryServer
import Testing

@testable import ObservatoryDaemon

/// Cluster mode's flags, environment variables and file settings, layered as every other setting.
@Suite struct ClusterOverridesTests {
    private func resolve(
        flags: [String], environment: [String: String] = [:], file: String = "{}"
    ) throws -> ServerConfiguration {
        guard case .run(let overrides) = try DaemonCommand.parse(flags) else {
            Issue.record("expected a run command")
            return ServerConfiguration()
        }
        return try ServerConfiguration.resolve(
            flags: overrides, environment: ConfigurationOverrides(environment: environment),
            readFile: { _ in Data(file.utf8) })
    }

    @Test func withoutEtcdTheStateStaysLocal() throws {
        #expect(try resolve(flags: []).cluster == nil)
    }

    @Test func theEtcdFlagTurnsClusterModeOnWithDefaults() throws {
        let cluster = try resolve(flags: ["--etcd", "http://10.0.0.1:2379,http://10.0.0.2:2379"]).cluster
        #expect(cluster?.etcd == ["http://10.0.0.1:2379", "http://10.0.0.2:2379"])
        #expect(cluster?.prefix == "observatory/")
        #expect(cluster?.sessionTTLSeconds == 10)
    }

    @Test func theFlagsOverrideTheEnvironmentWhichOverridesTheFile() throws {
        let file = #"{"cluster":{"etcd":["http://f:1"],"prefix":"file/","sessionTTLSeconds":4}}"#
        let fromFile = try resolve(flags: ["--config", "c.json"], file: file).cluster
        #expect(fromFile?.etcd == ["http://f:1"])
        #expect(fromFile?.sessionTTLSeconds == 4)
        let environment = ["OBSERVATORY_ETCD": "http://e:1", "OBSERVATORY_ETCD_PREFIX": "env/"]
        let fromEnvironment = try resolve(flags: ["--config", "c.json"], environment: environment, file: file).cluster
        #expect(fromEnvironment?.etcd == ["http://e:1"])
        #expect(fromEnvironment?.prefix == "env/")
        #expect(fromEnvironment?.sessionTTLSeconds == 4)
        let fromFlags = try resolve(
            flags: ["--config", "c.json", "--etcd-prefix=flag/"], environment: environment, file: file
        ).cluster
        #expect(fromFlags?.prefix == "flag/")
    }

    @Test func aPrefixWithoutEtcdMembersIsAnError() {
        #expect(throws: ConfigurationError.self) { try resolve(flags: ["--etcd-prefix", "p/"]) }
    }

    @Test func unknownClusterSettingsAndBadURLsAreErrors() {
        #expect(throws: ConfigurationError.self) {
            try resolve(flags: ["--config", "c.json"], file: #"{"cluster":{"etcd":["http://a:1"],"ttl":3}}"#)
        }
        #expect(throws: ConfigurationError.self) { try resolve(flags: ["--etcd", "a:1"]) }
    }
}
