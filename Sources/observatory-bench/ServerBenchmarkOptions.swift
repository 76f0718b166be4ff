import Foundation

/// The command line of `observatory-bench server`.
struct ServerBenchmarkOptions {
    static let usage = """
        usage: observatory-bench server [options]
          --seconds S             measured seconds per scenario and server (default 5)
          --runs N                runs of every scenario on every server; the table gives medians (default 3)
          --servers LIST          some of observatoryd,websocket,redis (default observatoryd,redis; the ratio
                                  column needs two): websocket is observatoryd with its clients on GET /ws
          --scenarios LIST        some of \(ServerScenario.all.map(\.name).joined(separator: ",")) (default all)
          --daemon PATH           observatoryd (default: the one next to this executable)
          --redis-server PATH     redis-server (default: the one on PATH)
          --fsync POLICY          none (default) | everysec | always: storage for both servers, each in a new
                                  temporary directory: observatoryd --fsync POLICY, redis-server
                                  --appendonly yes --appendfsync POLICY (none: no persistence for either)
          --observatoryd-args A   extra observatoryd arguments, split at spaces (e.g. "--fsync everysec --data DIR")
          --redis-args A          extra redis-server arguments, split at spaces (e.g. "--appendonly yes --dir DIR")
        """

    var seconds = 5.0
    var runs = 3
    var scenarios = ServerScenario.all
    private var servers = ["observatoryd", "redis"]
    private var daemonPath: String?
    private var redisPath = "redis-server"
    private var observatorydArguments: [String] = []
    private var redisArguments: [String] = []
    /// Data directories made for `--fsync`, removed when the benchmark ends.
    private(set) var dataDirectories: [String] = []

    init(_ arguments: [String]) throws {
        for (flag, value) in try Self.flagsAndValues(arguments, usage: Self.usage) { try apply(flag, value) }
    }

    /// `arguments` as flag and value pairs (every option of the suites takes a value), or an error with `usage`.
    static func flagsAndValues(_ arguments: [String], usage: String) throws -> [(flag: String, value: String)] {
        var pairs: [(flag: String, value: String)] = []
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            guard let value = remaining.popFirst() else { throw BenchError("\(flag) needs a value\n\(usage)") }
            pairs.append((flag, value))
        }
        return pairs
    }

    private mutating func apply(_ flag: String, _ value: String) throws {
        switch flag {
        case "--seconds": seconds = try Self.number(flag, value, in: 0.1...600)
        case "--runs": runs = Int(try Self.number(flag, value, in: 1...99))
        case "--servers": servers = try Self.names(value, from: ["observatoryd", "websocket", "redis"])
        case "--scenarios":
            let names = try Self.names(value, from: ServerScenario.all.map(\.name))
            scenarios = ServerScenario.all.filter { names.contains($0.name) }
        case "--daemon": daemonPath = value
        case "--redis-server": redisPath = value
        case "--fsync": try persist(value)
        case "--observatoryd-args": observatorydArguments = value.split(separator: " ").map(String.init)
        case "--redis-args": redisArguments = value.split(separator: " ").map(String.init)
        default: throw BenchError("unknown option \(flag)\n\(Self.usage)")
        }
    }

    /// The servers to measure, in the order of `--servers`.
    /// Gives both servers storage with the same fsync policy, each in a directory of its own.
    private mutating func persist(_ policy: String) throws {
        guard ["none", "everysec", "always"].contains(policy) else {
            throw BenchError("--fsync takes none, everysec or always, not \(policy)")
        }
        guard policy != "none" else { return }
        let directories = try ["observatoryd", "redis"].map { name in
            let path = NSTemporaryDirectory() + "observatory-bench-\(name)-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return path
        }
        dataDirectories += directories
        observatorydArguments += ["--fsync", policy, "--data", directories[0]]
        redisArguments += ["--appendonly", "yes", "--appendfsync", policy, "--dir", directories[1]]
    }

    func launches() throws -> [ServerLaunch] {
        try servers.map { name in
            name == "redis"
                ? .redis(executable: try redisExecutable(), extraArguments: redisArguments)
                : .observatoryd(
                    executable: try daemonPath ?? Self.daemonNextToThisExecutable(),
                    extraArguments: observatorydArguments, webSocket: name == "websocket")
        }
    }

    private func redisExecutable() throws -> String {
        do {
            return try ServerLaunch.resolve(redisPath)
        } catch {
            throw BenchError("\(error): install it, pass --redis-server PATH, or measure only --servers observatoryd")
        }
    }

    /// `text` as a number within `range`, or an error naming `flag`.
    static func number(_ flag: String, _ text: String, in range: ClosedRange<Double>) throws -> Double {
        guard let value = Double(text), range.contains(value) else {
            throw BenchError("\(flag) needs a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// The comma-separated `list`, each one of `known`, or an error naming what is expected.
    static func names(_ list: String, from known: [String]) throws -> [String] {
        let names = list.split(separator: ",").map(String.init)
        let expected = "expected some of \(known.joined(separator: ","))"
        if let unknown = names.first(where: { !known.contains($0) }) {
            throw BenchError("unknown \(unknown); \(expected)")
        }
        guard !names.isEmpty else { throw BenchError(expected) }
        return names
    }

    private static func daemonNextToThisExecutable() throws -> String {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        let candidate = directory.appendingPathComponent("observatoryd").path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw BenchError("no observatoryd next to this executable; build it, or pass --daemon PATH")
        }
        return candidate
    }
}
