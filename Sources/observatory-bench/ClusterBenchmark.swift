import Foundation
import ObservatorySockets

/// `observatory-bench cluster`: observatoryd nodes on etcd next to references
/// measured in the same run: writes through one node against puts straight to
/// etcd's gateway, a node's CPU per delivery against a single daemon's, and the lag
/// of events from one node to another.
///
/// Each repetition starts fresh etcd members and daemons (`ClusterUnderTest`) and
/// measures every scenario, the node and its reference one after the other (their
/// order swaps every other repetition, so neither always goes first). The client is
/// the server suite's `LoadDriver`. Every process started is stopped by its pid, also
/// when a measurement fails or the benchmark is interrupted.
enum ClusterBenchmark {
    private static let nodeColumn = "cluster node"
    private static let referenceColumn = "reference"

    /// Runs the benchmark and prints a Markdown table.
    static func run(arguments: [String]) throws {
        guard !arguments.contains("--help") else { return print(ClusterBenchmarkOptions.usage) }
        let options = try ClusterBenchmarkOptions(arguments)
        let (daemon, etcdExecutable) = (try options.daemonExecutable(), try options.etcdExecutable())
        let limit = FileDescriptorLimit.raiseToMaximum()
        let interruptHandlers = ChildProcesses.stopAllOnInterrupt()
        defer { withExtendedLifetime(interruptHandlers) {} }
        var table = ComparisonTable(servers: [nodeColumn, referenceColumn], scenarios: options.scenarios)
        for run in 1...options.repetitions {
            let cluster = try ClusterUnderTest(members: options.members, etcdExecutable: etcdExecutable, daemon: daemon)
            defer { cluster.stop() }
            for scenario in options.scenarios {
                measure(scenario, on: cluster, options, run: run, into: &table)
            }
        }
        print(
            "open-file limit \(limit.after); \(options.seconds) s per measurement; median of \(options.repetitions) "
                + "runs; \(options.members) etcd member\(options.members == 1 ? "" : "s") (\(etcdExecutable)); "
                + "observatoryd: \(daemon)")
        print()
        print(table.markdown)
    }

    /// The node's and the reference's measurement into the table, in an order that
    /// swaps every other run; a failure is recorded in its cell and the benchmark goes on.
    private static func measure(
        _ scenario: ClusterScenario, on cluster: ClusterUnderTest, _ options: ClusterBenchmarkOptions, run: Int,
        into table: inout ComparisonTable<ClusterScenario>
    ) {
        let sides: [(column: String, measure: () throws -> ScenarioResult?)] = [
            (nodeColumn, { try scenario.measureNode(on: cluster, seconds: options.seconds, run: run) }),
            (referenceColumn, { try scenario.measureReference(on: cluster, seconds: options.seconds, run: run) }),
        ]
        for side in run % 2 == 1 ? sides : sides.reversed() {
            do {
                guard let result = try side.measure() else { continue }
                table.add(result, scenario: scenario, server: side.column)
                progress("run \(run) \(scenario.name) \(side.column): \(result.summary(scenario.unit))")
            } catch {
                table.addFailure("\(error)", scenario: scenario, server: side.column)
                progress("run \(run) \(scenario.name) \(side.column): failed: \(error)")
            }
        }
    }

    private static func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
