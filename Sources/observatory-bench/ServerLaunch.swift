import Foundation

/// How to start one server under test: which program, in which dialect, with which
/// arguments. The benchmark's own arguments come first and the caller's extra ones
/// last, so that later rows can start observatoryd with `--fsync everysec --data DIR`
/// or Redis with `--appendonly yes --appendfsync everysec --dir DIR` (for both, a
/// later argument overrides an earlier one).
struct ServerLaunch: Sendable {
    let dialect: WireDialect
    /// The program's absolute path.
    let executable: String
    /// Appended after the benchmark's arguments.
    let extraArguments: [String]
    /// The client port, when it must be chosen before the server starts (etcd members
    /// name each other's ports); nil lets observatoryd pick one and Redis get a free one.
    var port: Int?

    /// observatoryd on any free loopback port; it logs the port it bound. Its clients
    /// speak the line protocol over TCP, or over WebSocket with `webSocket`.
    static func observatoryd(executable: String, extraArguments: [String], webSocket: Bool = false) -> ServerLaunch {
        ServerLaunch(
            dialect: webSocket ? .observatoryWebSocket : .observatory, executable: executable,
            extraArguments: extraArguments)
    }

    /// redis-server without persistence (`--save "" --appendonly no`), unless the extra arguments say otherwise.
    static func redis(executable: String, extraArguments: [String]) -> ServerLaunch {
        ServerLaunch(dialect: .redis, executable: executable, extraArguments: extraArguments)
    }

    /// An etcd member serving its JSON gateway on `clientPort`; `arguments` are its
    /// whole command line (name, data directory, URLs, initial cluster).
    static func etcdMember(executable: String, clientPort: Int, arguments: [String]) -> ServerLaunch {
        ServerLaunch(dialect: .etcdGateway, executable: executable, extraArguments: arguments, port: clientPort)
    }

    /// The server's name, program and extra arguments, for the table's header.
    var summary: String {
        (["\(dialect.serverName): \(executable)"] + extraArguments).joined(separator: " ")
    }

    /// The command line for a server that listens on `port` (observatoryd: 0, and it picks one).
    func arguments(port: Int) -> [String] {
        let own: [String] =
            switch dialect {
            case .observatory, .observatoryWebSocket:
                // In memory unless the extra arguments say otherwise, as Redis is.
                ["--host", "127.0.0.1", "--port", String(port), "--log-level", "info", "--fsync", "none"]
            case .redis:
                [
                    "--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no",
                    "--daemonize", "no", "--maxclients", "20000", "--tcp-backlog", "4096",
                ]
            case .etcdGateway:
                []
            }
        return own + extraArguments
    }

    /// `name` itself if it contains a slash, else the first executable `name` on `PATH`.
    static func resolve(_ name: String) throws -> String {
        if name.contains("/") {
            guard FileManager.default.isExecutableFile(atPath: name) else { throw BenchError("no executable \(name)") }
            return name
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw BenchError("no \(name) on PATH")
    }
}
