import Foundation
import ObservatoryServer
import ObservatorySockets

/// A server under test, running as a child process of the benchmark: started from a
/// `ServerLaunch` with its output in a log file, ready once it accepts connections,
/// and stopped by its pid (SIGTERM, then SIGKILL after 5 s).
final class ServerProcess {
    let launch: ServerLaunch
    let port: Int
    let pid: Int32
    private let process: Process
    private let logPath: String

    /// Starts the server and waits (at most 10 s) until it accepts connections.
    init(launch: ServerLaunch) throws {
        self.launch = launch
        let requestedPort = try launch.port ?? (launch.dialect == .redis ? Self.freePort() : 0)
        logPath = NSTemporaryDirectory() + "observatory-bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        guard FileManager.default.createFile(atPath: logPath, contents: nil),
            let log = FileHandle(forWritingAtPath: logPath)
        else { throw BenchError("cannot create the server log \(logPath)") }
        process = Process()
        process.executableURL = URL(fileURLWithPath: launch.executable)
        process.arguments = launch.arguments(port: requestedPort)
        process.standardOutput = log
        process.standardError = log
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(atPath: logPath)
            throw BenchError("cannot start \(launch.executable): \(error)")
        }
        pid = process.processIdentifier
        ChildProcesses.add(pid)
        do {
            port = requestedPort != 0 ? requestedPort : try Self.loggedPort(in: logPath, of: process)
            try Self.waitForListener(port: port, of: process)
        } catch {
            let log = Self.tail(of: logPath)
            Self.terminate(process, logPath: logPath)
            throw BenchError("\(launch.dialect.serverName) did not start: \(error); log: \(log)")
        }
    }

    /// The server's resident memory, from /proc.
    func residentKilobytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let value = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw BenchError("cannot read VmRSS of process \(pid)") }
        return value
    }

    /// The last 500 bytes of the server's output, for error messages.
    func logTail() -> String {
        Self.tail(of: logPath)
    }

    /// Stops the server: SIGTERM, and SIGKILL if it has not exited after 5 s.
    func stop() {
        Self.terminate(process, logPath: logPath)
    }

    private static func terminate(_ process: Process, logPath: String) {
        let pid = process.processIdentifier
        defer {
            ChildProcesses.remove(pid)
            try? FileManager.default.removeItem(atPath: logPath)
        }
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        for _ in 0..<500 where process.isRunning { usleep(10_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
    }

    /// The port observatoryd reports in its log line `listening on 127.0.0.1:PORT`.
    private static func loggedPort(in path: String, of process: Process) throws -> Int {
        let marker = "listening on 127.0.0.1:"
        for _ in 0..<500 {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            if let range = text.range(of: marker),
                let port = Int(text[range.upperBound...].prefix(while: { $0.isNumber })),
                text[range.upperBound...].contains("\n")
            {
                return port
            }
            guard process.isRunning else { throw BenchError("it exited") }
            usleep(20_000)
        }
        throw BenchError("no `\(marker)` line within 10 s")
    }

    private static func waitForListener(port: Int, of process: Process) throws {
        for _ in 0..<200 {
            if let socket = try? StreamSocket.connect(host: "127.0.0.1", port: port, timeoutMilliseconds: 1_000) {
                socket.close()
                return
            }
            guard process.isRunning else { throw BenchError("it exited") }
            usleep(50_000)
        }
        throw BenchError("nothing listens on port \(port) after 10 s")
    }

    /// A loopback port that was free a moment ago, for servers that cannot report the one they bind.
    private static func freePort() throws -> Int {
        var configuration = ServerConfiguration()
        configuration.port = 0
        let probe = try Server(configuration: configuration)
        try probe.start()
        defer { probe.stop() }
        return probe.port
    }

    private static func tail(of path: String) -> String {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return String(text.suffix(500))
    }
}
