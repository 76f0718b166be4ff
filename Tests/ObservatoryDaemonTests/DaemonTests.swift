import Glibc
import ObservatoryServer
import ObservatorySockets
import Testing

@testable import ObservatoryDaemon

@Suite struct DaemonTests {
    @Test func badFlagValueReturnsTwoAndNamesTheSetting() {
        var errors: [String] = []
        let status = Daemon.run(
            arguments: ["--log-level", "loud"], environment: [:], print: { _ in }, printError: { errors.append($0) })
        #expect(status == Daemon.exitBadConfiguration)
        #expect(errors.count == 1)
        #expect(errors.first?.contains("logLevel (--log-level)") == true)
    }

    @Test func badEnvironmentValueReturnsTwo() {
        var errors: [String] = []
        let status = Daemon.run(
            arguments: [], environment: ["OBSERVATORY_PORT": "-5"], print: { _ in }, printError: { errors.append($0) })
        #expect(status == 2)
        #expect(errors.first?.contains("'port'") == true)
    }

    @Test func helpPrintsUsageAndReturnsZero() {
        var printed: [String] = []
        let status = Daemon.run(
            arguments: ["--help"], environment: [:], print: { printed.append($0) }, printError: { _ in })
        #expect(status == 0)
        #expect(printed == [DaemonCommand.usage])
    }
}

@Suite struct DaemonAddressTests {
    @Test func aListOfServersInOBSERVATORYHOSTIsABadConfigurationNamingTheVariable() {
        var errors: [String] = []
        let status = Daemon.run(
            arguments: ["--port", "7080"], environment: ["OBSERVATORY_HOST": "127.0.0.1:7071,127.0.0.1:7072"],
            print: { _ in }, printError: { errors.append($0) })
        #expect(status == Daemon.exitBadConfiguration)
        #expect(errors.first?.contains("host (OBSERVATORY_HOST)") == true, "\(errors)")
        #expect(errors.first?.contains("OBSERVATORY_SERVERS") == true)
    }

    @Test func aHostWithAPortIsABadConfigurationNamingTheFlag() {
        var errors: [String] = []
        let status = Daemon.run(
            arguments: ["--host", "127.0.0.1:7071"], environment: [:], print: { _ in },
            printError: { errors.append($0) })
        #expect(status == Daemon.exitBadConfiguration)
        #expect(errors.first?.contains("host (--host)") == true, "\(errors)")
    }

    @Test func anIPv6AddressIsStillAListenAddress() throws {
        let overrides = ConfigurationOverrides(environment: ["OBSERVATORY_HOST": "::1"])
        var configuration = ServerConfiguration()
        try overrides.apply(to: &configuration)
        #expect(configuration.host == "::1")
    }

    @Test func aPortInUseSaysWhatToDo() {
        var configuration = ServerConfiguration()
        configuration.port = 7080
        let message = Daemon.startFailure(
            SocketError(operation: "bind 127.0.0.1:7080", errorNumber: EADDRINUSE), configuration: configuration)
        #expect(message.contains("Address already in use"))
        #expect(message.contains("choose another port with --port"))
    }
}
