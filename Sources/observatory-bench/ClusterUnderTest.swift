/// What one run of `observatory-bench cluster` measures: fresh etcd members, two
/// observatoryd nodes on them (A takes the writes, B the observers), and one
/// daemon without etcd as the fan-out reference. Every process is stopped by its
/// pid in `stop`, and also when the benchmark is interrupted (`ChildProcesses`).
final class ClusterUnderTest {
    /// The key prefix of the nodes' state in etcd; the writes reference puts outside it.
    static let prefix = "observatory-bench/"

    let etcd: EtcdMembers
    /// The node the writers use.
    let nodeA: ServerProcess
    /// The node the observers use (the fan-out's and the lag's).
    let nodeB: ServerProcess
    /// observatoryd on its own, in memory.
    let singleDaemon: ServerProcess

    /// Starts the etcd members, then the daemons; stops what started if anything fails.
    init(members: Int, etcdExecutable: String, daemon: String) throws {
        etcd = try EtcdMembers(count: members, executable: etcdExecutable)
        let clusterArguments = ["--etcd", etcd.endpoints.joined(separator: ","), "--etcd-prefix", Self.prefix]
        var daemons: [ServerProcess] = []
        do {
            for _ in 0..<2 {
                daemons.append(
                    try ServerProcess(launch: .observatoryd(executable: daemon, extraArguments: clusterArguments)))
            }
            daemons.append(try ServerProcess(launch: .observatoryd(executable: daemon, extraArguments: [])))
        } catch {
            for started in daemons { started.stop() }
            etcd.stop()
            throw error
        }
        (nodeA, nodeB, singleDaemon) = (daemons[0], daemons[1], daemons[2])
    }

    /// Stops the daemons, then the etcd members, and removes etcd's data. Idempotent.
    func stop() {
        for daemon in [nodeA, nodeB, singleDaemon] { daemon.stop() }
        etcd.stop()
    }
}
