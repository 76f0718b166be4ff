import Foundation
import ObservatoryServer
import ObservatorySockets

/// `observatory-bench server`: observatoryd next to redis-server, same scenarios,
/// same client, same run, so each row's ratio holds however busy the machine is.
///
/// Each run starts every server afresh and measures the scenarios one after the
/// other, alternating between the servers (and reversing their order every other
/// run, so neither always goes first); memory rows get a fresh server each. The
/// client is `LoadDriver`, one thread on one epoll set, so the server under test
/// gets the machine's other core. Every server started is stopped by its pid, also
/// when a measurement fails or the benchmark is interrupted.
enum ServerBenchmark {
    /// Runs the benchmark and prints a Markdown table.
    static func run(arguments: [String]) throws {
        guard !arguments.contains("--help") else { return print(ServerBenchmarkOptions.usage) }
        let options = try ServerBenchmarkOptions(arguments)
        defer { for directory in options.dataDirectories { try? FileManager.default.removeItem(atPath: directory) } }
        let launches = try options.launches()
        let limit = FileDescriptorLimit.raiseToMaximum()
        let interruptHandlers = ChildProcesses.stopAllOnInterrupt()
        defer { withExtendedLifetime(interruptHandlers) {} }
        var table = ComparisonTable(servers: launches.map(\.dialect.serverName), scenarios: options.scenarios)
        for run in 1...options.runs {
            let order = run % 2 == 1 ? launches : launches.reversed()
            let shared = options.scenarios.filter { !$0.needsFreshServer }
            let fresh = options.scenarios.filter(\.needsFreshServer)
            try measureOnSharedServers(shared, order, options, run: run, into: &table)
            try measureOnFreshServers(fresh, order, options, run: run, into: &table)
        }
        print("open-file limit \(limit.after); \(options.seconds) s per measurement; median of \(options.runs) runs")
        for launch in launches { print("- \(launch.summary)") }
        print()
        print(table.markdown)
    }

    /// One server of each kind for all of `scenarios`, the servers taking turns per scenario.
    private static func measureOnSharedServers(
        _ scenarios: [ServerScenario], _ launches: [ServerLaunch], _ options: ServerBenchmarkOptions, run: Int,
        into table: inout ComparisonTable<ServerScenario>
    ) throws {
        guard !scenarios.isEmpty else { return }
        var servers: [ServerProcess] = []
        defer { for server in servers { server.stop() } }
        for launch in launches { servers.append(try ServerProcess(launch: launch)) }
        for scenario in scenarios {
            for server in servers {
                measure(scenario, on: server, options, run: run, into: &table)
            }
        }
    }

    private static func measureOnFreshServers(
        _ scenarios: [ServerScenario], _ launches: [ServerLaunch], _ options: ServerBenchmarkOptions, run: Int,
        into table: inout ComparisonTable<ServerScenario>
    ) throws {
        for scenario in scenarios {
            for launch in launches {
                let server = try ServerProcess(launch: launch)
                defer { server.stop() }
                measure(scenario, on: server, options, run: run, into: &table)
            }
        }
    }

    /// One measurement into the table; a failure is recorded in its row and the benchmark goes on.
    private static func measure(
        _ scenario: ServerScenario, on server: ServerProcess, _ options: ServerBenchmarkOptions, run: Int,
        into table: inout ComparisonTable<ServerScenario>
    ) {
        let name = server.launch.dialect.serverName
        do {
            let result = try scenario.measure(on: server, seconds: options.seconds, run: run)
            table.add(result, scenario: scenario, server: name)
            progress("run \(run) \(scenario.name) \(name): \(result.summary(scenario.unit))")
        } catch {
            table.addFailure("\(error)", scenario: scenario, server: name)
            progress("\(scenario.name) \(name): failed: \(error)")
        }
    }

    private static func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
