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
