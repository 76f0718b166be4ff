import Dispatch
import Foundation
import Observatory
import ObservatoryEtcd
import ObservatoryTestSupport
import ObservatoryWire
import Testing

/// Cluster mode with real failures: daemons as processes, killed with `SIGKILL`
/// in the middle of their work, and an etcd leader killed under writes.
///
/// Each writer sets one key of its own to 1, 2, 3, … and remembers the last value
/// acknowledged. Nothing acknowledged may be lost, and an observer on another node
/// must see every value of every key once, in one increasing revision order.
@Suite(.requiresEtcd, .serialized)
struct ClusterProcessTests {
    private let launcher = DaemonLauncher()

    @Test func aNodeKilledDuringAWriteStormLosesNoAcknowledgedWrite() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let nodes = try DaemonNodes(2, on: etcd, launcher: launcher)
            defer { nodes.stop() }
            let watcher = try nodes.client(1, name: "watcher")
            #expect(try watcher.request(#"{"op":"observe","prefix":"storm."}"#)["ok"] == true)

            let storm = WriteStorm(writers: 4, port: nodes.ports[0])
            try waitUntil("writes acknowledged before the kill", timeout: .seconds(30)) {
                storm.acknowledgedCount >= 200
            }
            nodes.kill(0)
            storm.waitUntilStopped()

            let acknowledged = storm.lastAcknowledged
            #expect(storm.failures.isEmpty, "\(storm.failures)")
            #expect(acknowledged.allSatisfy { $0 > 0 }, "acknowledged: \(acknowledged)")
            let probe = try nodes.client(1, name: "probe")
            try storm.expectEveryAcknowledgedWrite(readingFrom: probe, watching: watcher)
        }
    }

    @Test func theSessionBoundKeysOfAKilledNodeGoWithTheirLease() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let nodes = try DaemonNodes(2, on: etcd, launcher: launcher, sessionTTLSeconds: 2)
            defer { nodes.stop() }
            let alice = try nodes.client(0, name: "alice")
            let watcher = try nodes.client(1, name: "watcher")
            #expect(try watcher.request(#"{"op":"observe","key":"presence.alice"}"#)["ok"] == true)
            let set = try alice.request(#"{"op":"set","key":"presence.alice","value":"here","ephemeral":true}"#)
            #expect(set["ok"] == true)
            #expect(try watcher.next()["event"] == "update")

            let killedAt = ContinuousClock.now
            nodes.kill(0)
            let ended = try watcher.next(timeout: 30)
            #expect(ended["event"] == "delete")
            #expect(ended["reason"] == "session_ended")
            #expect(ended["author"] == "alice")
            // A killed node revokes nothing: the key goes when its lease expires.
            #expect(ContinuousClock.now - killedAt > .milliseconds(500))
        }
    }

    @Test func theEtcdLeaderKilledDuringWritesLosesNothingAcknowledged() async throws {
        try await EtcdCluster.withCluster(members: 3) { etcd in
            let nodes = try DaemonNodes(2, on: etcd, launcher: launcher)
            defer { nodes.stop() }
            let watcher = try nodes.client(1, name: "watcher")
            #expect(try watcher.request(#"{"op":"observe","prefix":"storm."}"#)["ok"] == true)

            // Writers retry a write that answered `unavailable` with its requestId,
            // as docs/protocol.md says, so each value is applied once whatever happened.
            let storm = WriteStorm(writers: 3, port: nodes.ports[0], retriesUnavailable: true)
            defer { storm.stop() }
            try waitUntil("writes acknowledged before the kill", timeout: .seconds(30)) {
                storm.acknowledgedCount >= 100
            }
            let leader = try #require(try Self.leaderIndex(of: etcd))
            etcd.kill(leader)
            let beforeKill = storm.acknowledgedCount
            try waitUntil("writes acknowledged after the kill", timeout: .seconds(60)) {
                storm.acknowledgedCount >= beforeKill + 100
            }
            storm.stop()
            storm.waitUntilStopped()

            #expect(storm.failures.isEmpty, "\(storm.failures)")
            let probe = try nodes.client(1, name: "probe")
            try storm.expectEveryAcknowledgedWrite(readingFrom: probe, watching: watcher) { nodes.logs() }
        }
    }

    /// The index of the member that is the Raft leader now.
    private static func leaderIndex(of etcd: EtcdCluster) throws -> Int? {
        let statuses = try etcd.members.map { member in try EtcdClient(urls: [member.clientURL]).status() }
        return statuses.firstIndex { $0.leader != 0 && $0.header.memberID == $0.leader }
    }
}

/// Daemons in cluster mode as separate processes, on free ports, stopped by pid.
final class DaemonNodes {
    private let launcher: DaemonLauncher
    private let processes: [Process]
    /// What each daemon wrote to its standard error (the last 256 KiB), read as it
    /// comes so that a full pipe never blocks a daemon, and shown when a test fails.
    private let logged: [Locked<String>]
    let ports: [Int]
    private let directory: TemporaryDirectory

    init(_ count: Int, on etcd: EtcdCluster, launcher: DaemonLauncher, sessionTTLSeconds: Int = 10) throws {
        self.launcher = launcher
        directory = try TemporaryDirectory()
        let prefix = "process-\(UUID().uuidString.prefix(8))/"
        let configuration = directory.path(of: "cluster.json")
        let cluster: JSONValue = [
            "cluster": [
                "etcd": .array(etcd.endpoints.map { .string($0) }), "prefix": .string(prefix),
                "sessionTTLSeconds": .integer(Int64(sessionTTLSeconds)),
            ]
        ]
        try Data(cluster.encoded()).write(to: URL(fileURLWithPath: configuration))
        var processes: [Process] = []
        var logged: [Locked<String>] = []
        var ports: [Int] = []
        do {
            for _ in 0..<count {
                let (process, error, port, log) = try launcher.launchListening(["--config", configuration])
                processes.append(process)
                let text = Locked(log)
                error.fileHandleForReading.readabilityHandler = { handle in
                    let data = handle.availableData
                    // End of file: the daemon is gone; stop, or the handler would run forever.
                    guard !data.isEmpty else {
                        handle.readabilityHandler = nil
                        return
                    }
                    text.withLock { $0 = String(($0 + String(decoding: data, as: UTF8.self)).suffix(262_144)) }
                }
                logged.append(text)
                ports.append(port)
            }
        } catch {
            processes.forEach(launcher.stopIfRunning)
            throw error
        }
        self.processes = processes
        self.logged = logged
        self.ports = ports
    }

    /// What each node has logged.
    func logs() -> String {
        logged.enumerated().map { index, text in "node \(index):\n" + text.withLock { $0 } }.joined(separator: "\n")
    }

    /// A connection to node `index` that said hello as `name`.
    func client(_ index: Int, name: String) throws -> LineClient {
        let client = try LineClient(port: ports[index])
        _ = try client.request(#"{"op":"hello","protocol":1,"name":"\#(name)"}"#)
        return client
    }

    /// Node `index`'s process id, to look at it from outside (its threads in `/proc`).
    func processIdentifier(_ index: Int) -> Int32 {
        processes[index].processIdentifier
    }

    /// Kills node `index` with `SIGKILL`: no goodbye to etcd or to clients.
    func kill(_ index: Int) {
        launcher.stopIfRunning(processes[index])
    }

    func stop() {
        processes.forEach(launcher.stopIfRunning)
    }
}
