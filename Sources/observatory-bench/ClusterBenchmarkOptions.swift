import Foundation

/// The command line of `observatory-bench cluster`.
struct ClusterBenchmarkOptions {
    static let usage = """
        usage: observatory-bench cluster [options]
          --seconds S          measured seconds per scenario and side (default 5)
          --repetitions N      runs of every scenario, each on fresh etcd members and daemons; the table
                               gives medians (default 3)
          --members 1|3        etcd members (default 1)
          --only LIST          some of \(ClusterScenario.groups.joined(separator: ",")) (default all)
          --fanout-rate R      sets/s of the fan-out writers on node A and on the single daemon (default 250)
          --lag-rate R         sets/s of the lag writers on node A (default 1000)
          --binary PATH        observatoryd (default: the one next to this executable)
          --etcd-binary PATH   etcd (default: the one on PATH)
        """

    var seconds = 5.0
    var repetitions = 3
    var members = 1
    private var groups = ClusterScenario.groups
    private var fanOutRate = 250
    private var lagRate = 1_000
    private var binary: String?
    private var etcdBinary = "etcd"

    init(_ arguments: [String]) throws {
        for (flag, value) in try ServerBenchmarkOptions.flagsAndValues(arguments, usage: Self.usage) {
            try apply(flag, value)
        }
    }

    private mutating func apply(_ flag: String, _ value: String) throws {
        switch flag {
        case "--seconds": seconds = try ServerBenchmarkOptions.number(flag, value, in: 0.1...600)
        case "--repetitions": repetitions = Int(try ServerBenchmarkOptions.number(flag, value, in: 1...99))
        case "--members":
            guard value == "1" || value == "3" else { throw BenchError("--members takes 1 or 3, not \(value)") }
            members = Int(value) ?? 1
        case "--only":
            let names = try ServerBenchmarkOptions.names(value, from: ClusterScenario.groups)
            groups = ClusterScenario.groups.filter { names.contains($0) }
        case "--fanout-rate": fanOutRate = Int(try ServerBenchmarkOptions.number(flag, value, in: 1...1_000_000))
        case "--lag-rate": lagRate = Int(try ServerBenchmarkOptions.number(flag, value, in: 1...1_000_000))
        case "--binary": binary = value
        case "--etcd-binary": etcdBinary = value
        default: throw BenchError("unknown option \(flag)\n\(Self.usage)")
        }
    }

    /// The scenarios `--only` chose, in the table's order.
    var scenarios: [ClusterScenario] {
        groups.flatMap { ClusterScenario.group($0, fanOutRate: fanOutRate, lagRate: lagRate) ?? [] }
    }

    /// The observatoryd to start: `--binary`, or the one next to this executable.
    func daemonExecutable() throws -> String {
        let path =
            binary
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("observatoryd").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ClusterBenchmarkError.daemonMissing(path)
        }
        return path
    }

    /// The etcd to start: `--etcd-binary`, resolved on PATH.
    func etcdExecutable() throws -> String {
        do {
            return try ServerLaunch.resolve(etcdBinary)
        } catch {
            throw ClusterBenchmarkError.etcdMissing(etcdBinary)
        }
    }
}
