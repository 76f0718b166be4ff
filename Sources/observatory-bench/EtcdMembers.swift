import Foundation
import ObservatorySockets

#if canImport(Glibc)
    import Glibc
#endif

/// The etcd cluster of one run of `observatory-bench cluster`: one or three members
/// on free loopback ports, each a `ServerProcess` (so stopped by its pid, also when
/// the benchmark is interrupted), with their data in a temporary directory that
/// `stop` removes. Ready once a put through the first member's gateway succeeds,
/// which with three members also means they have elected a leader.
final class EtcdMembers {
    /// How long the members get to accept their first put.
    private static let readySeconds = 30

    /// The members, the first being the one whose gateway the benchmark writes to.
    let members: [ServerProcess]
    /// Every member's client URL, as observatoryd's `--etcd` takes them.
    let endpoints: [String]
    private let directory: String

    /// Starts `count` members of `executable` and waits until they accept a put.
    ///
    /// - Throws: `ClusterBenchmarkError` when etcd is missing or not ready in time; the
    ///   members already started are stopped and the directory removed.
    init(count: Int, executable: String) throws {
        directory = NSTemporaryDirectory() + "observatory-bench-etcd-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        ChildProcesses.add(directory: directory)
        let ports = try Self.freePorts(count * 2)
        let names = (1...count).map { "m\($0)" }
        let clientURLs = (0..<count).map { "http://127.0.0.1:\(ports[$0 * 2])" }
        let peerURLs = (0..<count).map { "http://127.0.0.1:\(ports[$0 * 2 + 1])" }
        let initialCluster = zip(names, peerURLs).map { "\($0)=\($1)" }.joined(separator: ",")
        let token = "observatory-bench-\(UUID().uuidString.prefix(8))"
        var started: [ServerProcess] = []
        do {
            for index in 0..<count {
                let arguments = [
                    "--name", names[index], "--data-dir", "\(directory)/\(names[index]).etcd",
                    "--listen-client-urls", clientURLs[index], "--advertise-client-urls", clientURLs[index],
                    "--listen-peer-urls", peerURLs[index], "--initial-advertise-peer-urls", peerURLs[index],
                    "--initial-cluster", initialCluster, "--initial-cluster-state", "new",
                    "--initial-cluster-token", token,
                    // As the cluster tests run their members: the nodes' watches get progress every second.
                    "--experimental-watch-progress-notify-interval", "1s",
                ]
                let launch = ServerLaunch.etcdMember(
                    executable: executable, clientPort: ports[index * 2], arguments: arguments)
                started.append(try ServerProcess(launch: launch))
            }
            try Self.waitUntilWritable(started[0])
        } catch {
            for member in started { member.stop() }
            Self.remove(directory)
            throw error
        }
        members = started
        endpoints = clientURLs
    }

    /// The member whose gateway the writes scenario puts to.
    var gateway: ServerProcess { members[0] }

    /// Stops every member by its pid and removes their data. Idempotent.
    func stop() {
        for member in members { member.stop() }
        Self.remove(directory)
    }

    private static func remove(_ directory: String) {
        try? FileManager.default.removeItem(atPath: directory)
        ChildProcesses.remove(directory: directory)
    }

    /// Puts one key through `member`'s gateway until it succeeds, for at most `readySeconds`.
    private static func waitUntilWritable(_ member: ServerProcess) throws {
        let deadline = MonotonicClock.now() + MonotonicClock.nanoseconds(Double(readySeconds))
        // Bounded by the deadline: every attempt takes at most 5 s, and a failed one waits 0.2 s.
        while MonotonicClock.now() < deadline {
            if (try? putOnce(on: member, until: min(deadline, MonotonicClock.now() + MonotonicClock.nanoseconds(5))))
                == true
            {
                return
            }
            usleep(200_000)
        }
        throw ClusterBenchmarkError.etcdNotReady(seconds: readySeconds, log: member.logTail())
    }

    private static func putOnce(on member: ServerProcess, until deadline: UInt64) throws -> Bool {
        let driver = try LoadDriver(dialect: .etcdGateway)
        let index = try driver.connect(port: member.port, count: 1).lowerBound
        driver.send(on: index) { EtcdGatewayFrames.appendPut(key: "bench.ready", value: Array("1".utf8), to: &$0) }
        var wait = ReplyWait(replies: 1)
        return try driver.run(&wait, until: deadline) && wait.failures == 0
    }

    /// `count` distinct loopback ports that were free a moment ago: all bound at once, so none repeats.
    private static func freePorts(_ count: Int) throws -> [Int] {
        let sockets = try (0..<count).map { _ in try ListeningSocket(host: "127.0.0.1", port: 0) }
        defer { for socket in sockets { socket.close() } }
        return sockets.map(\.port)
    }
}
