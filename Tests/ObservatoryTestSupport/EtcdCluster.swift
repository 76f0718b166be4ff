import Foundation
import Observatory
import ObservatorySockets

#if canImport(Glibc)
    import Glibc
#endif

/// Real etcd members on free loopback ports, for integration tests: one or
/// three of them, each in a temporary data directory, killed and restarted on
/// demand, and every process stopped by its pid at the end.
///
/// Use it through `withCluster`, which stops the members even when the test
/// fails or throws:
///
/// ```swift
/// @Test(.requiresEtcd)
/// func putThenRange() async throws {
///     try await EtcdCluster.withCluster(members: 1) { cluster in … cluster.endpoints … }
/// }
/// ```
///
/// In the shared test kit, for the etcd client's tests and cluster mode's: it
/// needs only Foundation and the socket layer.
///
/// Thread safety: the members' pids live in a `Locked` box (a pthread mutex ThreadSanitizer understands); it is never held while
/// spawning, waiting or polling, only to read or swap a pid.
public final class EtcdCluster: Sendable {
    /// Whether an `etcd` binary is on PATH; the integration tests are skipped without one.
    public static let isAvailable: Bool = executablePath("etcd") != nil

    /// One member's names and ports.
    public struct Member: Sendable {
        /// The member's name in the cluster (`n1`, `n2`, …).
        public let name: String
        /// The port clients use.
        public let clientPort: Int
        /// The port the other members use.
        public let peerPort: Int
        /// Its data directory.
        public let dataDirectory: String

        /// The client URL, `http://127.0.0.1:port`.
        public var clientURL: String { "http://127.0.0.1:\(clientPort)" }
        /// The peer URL.
        public var peerURL: String { "http://127.0.0.1:\(peerPort)" }
    }

    /// The members, in order.
    public let members: [Member]
    /// The temporary directory that holds every member's data and log.
    public let directory: String
    private let token: String
    private let pids: Locked<[Int32?]>

    /// Every member's client URL, in member order.
    public var endpoints: [String] { members.map(\.clientURL) }

    /// Starts `count` members and waits until each reports itself healthy.
    ///
    /// - Throws: `EtcdClusterError` when etcd cannot be started or is not
    ///   healthy within `timeout`; the members already started are stopped.
    public init(members count: Int, timeout: Duration = .seconds(20)) throws {
        Self.removeLeftovers()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(Self.directoryPrefix)\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let ports = try Self.freePorts(count * 2)
        members = (0..<count).map { index in
            Member(
                name: "n\(index + 1)", clientPort: ports[index * 2], peerPort: ports[index * 2 + 1],
                dataDirectory: "\(directory)/n\(index + 1).etcd")
        }
        self.directory = directory
        token = "observatory-\(UUID().uuidString.prefix(8))"
        pids = Locked(Array(repeating: nil, count: count))
        do {
            for index in members.indices { try start(index) }
            try waitUntilHealthy(members.indices, timeout: timeout)
        } catch {
            stop()
            throw error
        }
    }

    deinit {
        stop()
    }

    /// Starts a cluster of `count` members, runs `body` with it, and stops every
    /// member afterwards, whether `body` returned or threw.
    public static func withCluster<Result>(
        members count: Int, _ body: (EtcdCluster) async throws -> Result
    ) async throws -> Result {
        let cluster = try EtcdCluster(members: count)
        defer { cluster.stop() }
        return try await body(cluster)
    }

    /// Kills member `index` at once (`SIGKILL`): no goodbye to clients or peers.
    public func kill(_ index: Int) {
        let pid = pids.withLock { pids in
            defer { pids[index] = nil }
            return pids[index]
        }
        guard let pid else { return }
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    /// Starts member `index` again on its data directory and ports, and waits
    /// until it is healthy (which needs a quorum of members up).
    public func restart(_ index: Int, timeout: Duration = .seconds(20)) throws {
        try start(index)
        try waitUntilHealthy([index], timeout: timeout)
    }

    /// Kills every member still running and removes the data directories. Idempotent.
    public func stop() {
        for index in members.indices { kill(index) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Whether member `index` is running (started and not killed).
    public func isRunning(_ index: Int) -> Bool {
        pids.withLock { $0[index] != nil }
    }

    /// Spawns member `index`, its output going to `n<i>.log` in the directory.
    private func start(_ index: Int) throws {
        let member = members[index]
        let initialCluster = members.map { "\($0.name)=\($0.peerURL)" }.joined(separator: ",")
        let arguments = [
            "etcd", "--name", member.name, "--data-dir", member.dataDirectory,
            "--listen-client-urls", member.clientURL, "--advertise-client-urls", member.clientURL,
            "--listen-peer-urls", member.peerURL, "--initial-advertise-peer-urls", member.peerURL,
            "--initial-cluster", initialCluster, "--initial-cluster-state", "new",
            "--initial-cluster-token", token,
            // Progress notifications every second, so tests can wait for one.
            "--experimental-watch-progress-notify-interval", "1s",
        ]
        let pid = try Self.spawn(arguments, logPath: "\(directory)/\(member.name).log")
        pids.withLock { $0[index] = pid }
        // For `removeLeftovers`, should this test process die without stopping its members.
        try? String(pid).write(toFile: "\(directory)/\(member.name).pid", atomically: true, encoding: .utf8)
    }

    /// Polls `/health` of the given members until each says `true`, or throws at the deadline.
    private func waitUntilHealthy(_ indices: some Sequence<Int>, timeout: Duration) throws {
        let deadline = ContinuousClock.now + timeout
        for index in indices {
            while !Self.isHealthy(port: members[index].clientPort) {
                guard ContinuousClock.now < deadline, isRunning(index) else {
                    let log = (try? String(contentsOfFile: "\(directory)/\(members[index].name).log", encoding: .utf8))
                    throw EtcdClusterError(
                        message: "etcd member \(members[index].name) not healthy within \(timeout); its log ends: "
                            + String((log ?? "").suffix(2_000)))
                }
                usleep(50_000)
            }
        }
    }

    /// One `GET /health` over HTTP/1.0 (the server closes after answering), with a one-second budget.
    public static func isHealthy(port: Int) -> Bool {
        guard let socket = try? StreamSocket.connect(host: "127.0.0.1", port: port, timeoutMilliseconds: 1_000)
        else { return false }
        defer { socket.close() }
        let request = "GET /health HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
        guard (try? socket.sendAll(Array(request.utf8), timeoutMilliseconds: 1_000)) != nil else { return false }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let deadline = ContinuousClock.now + .seconds(1)
        while ContinuousClock.now < deadline, socket.waitReadable(timeoutMilliseconds: 200) {
            let received = buffer.withUnsafeMutableBytes { try? socket.receive(into: $0) }
            guard case .bytes(let count) = received else { break }
            answer += buffer[..<count]
        }
        return String(decoding: answer, as: UTF8.self).contains(#""health":"true""#)
    }

    /// The start of every cluster directory's name; the test process's pid follows.
    private static let directoryPrefix = "observatory-etcd-"

    /// Kills the members of clusters whose test process died without stopping
    /// them (a crash, a kill), and removes their directories: a member is
    /// killed only if its pid file names a running etcd using that directory.
    static func removeLeftovers() {
        let temporary = FileManager.default.temporaryDirectory.path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        for name in names where name.hasPrefix(directoryPrefix) {
            let owner = name.dropFirst(directoryPrefix.count).prefix { $0 != "-" }
            guard let ownerPID = Int32(owner), Glibc.kill(ownerPID, 0) != 0 else { continue }
            let directory = "\(temporary)/\(name)"
            let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            for file in files where file.hasSuffix(".pid") {
                guard let text = try? String(contentsOfFile: "\(directory)/\(file)", encoding: .utf8),
                    let pid = Int32(text),
                    let commandLine = try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8),
                    commandLine.contains(directory)
                else { continue }
                _ = Glibc.kill(pid, SIGKILL)
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// `count` distinct free loopback ports: all bound at once (so none repeats), then released.
    private static func freePorts(_ count: Int) throws -> [Int] {
        let sockets = try (0..<count).map { _ in try ListeningSocket(host: "127.0.0.1", port: 0) }
        defer { for socket in sockets { socket.close() } }
        return sockets.map(\.port)
    }

    /// Spawns `arguments[0]` from PATH with stdout and stderr appended to `logPath`.
    private static func spawn(_ arguments: [String], logPath: String) throws -> Int32 {
        guard let executable = executablePath(arguments[0]) else {
            throw EtcdClusterError(message: "\(arguments[0]) is not on PATH")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard status == 0 else {
            throw EtcdClusterError(message: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        return pid
    }

    /// The full path of `name` found on PATH, or nil.
    private static func executablePath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
