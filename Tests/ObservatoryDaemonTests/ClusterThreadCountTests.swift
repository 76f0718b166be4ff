import Foundation
import ObservatoryTestSupport
import ObservatoryWire
import Testing

/// A cluster node's threads do not grow with its sessions: one lease keeper
/// renews the node's one lease, to which every session-bound key is attached,
/// and no thread waits for etcd's answer to a write (one thread of the etcd
/// client's carries every exchange in flight).
@Suite(.requiresEtcd, .serialized)
struct ClusterThreadCountTests {
    private let launcher = DaemonLauncher()
    /// The most threads a node may hold, whatever its number of sessions (issue 27).
    private static let threadBound = 32

    @Test func aNodeWithAThousandSessionsHoldingSessionBoundKeysStaysWithinItsThreadBound() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let nodes = try DaemonNodes(1, on: etcd, launcher: launcher)
            defer { nodes.stop() }
            let node = nodes.processIdentifier(0)
            var sessions: [LineClient] = []
            var most = 0
            // A few writes in flight at a time: the count is about sessions holding keys, not concurrency.
            for first in stride(from: 0, to: 1_000, by: 8) {
                let batch = try (first..<first + 8).map { index in
                    let session = try nodes.client(0, name: "user\(index)")
                    try session.send(#"{"op":"set","key":"presence.\#(index)","value":"here","ephemeral":true}"#)
                    return session
                }
                for session in batch { #expect(try session.next()["ok"] == true) }
                sessions += batch
                if first % 96 == 0 { most = max(most, try Self.threadCount(of: node)) }
            }
            most = max(most, try Self.threadCount(of: node))
            #expect(most <= Self.threadBound, "the node ran \(most) threads for \(sessions.count) sessions")

            // Every session holds its key.
            let probe = try nodes.client(0, name: "probe")
            let listed = try probe.request(#"{"op":"list","prefix":"presence.","limit":2000}"#)
            guard case .array(let keys)? = listed["keys"] else {
                Issue.record("no keys in \(listed)")
                return
            }
            #expect(keys.count == sessions.count)
            for session in sessions { session.close() }
        }
    }

    @Test func aNodeWithHundredsOfSessionsWritingAtOnceStaysWithinItsThreadBound() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let nodes = try DaemonNodes(1, on: etcd, launcher: launcher)
            defer { nodes.stop() }
            let node = nodes.processIdentifier(0)
            let sessions = try (0..<300).map { index in try nodes.client(0, name: "writer\(index)") }
            var most = 0
            // Every session's write is in flight at once: no thread may wait for etcd per writer.
            for round in 0..<3 {
                for (index, session) in sessions.enumerated() {
                    try session.send(#"{"op":"set","key":"load.\#(index)","value":\#(round)}"#)
                }
                most = max(most, try Self.threadCount(of: node))
                for session in sessions { #expect(try session.next()["ok"] == true) }
                most = max(most, try Self.threadCount(of: node))
            }
            #expect(most <= Self.threadBound, "the node ran \(most) threads for \(sessions.count) sessions writing")
            for session in sessions { session.close() }
        }
    }

    /// The threads of process `pid`, from `/proc/PID/task`.
    private static func threadCount(of pid: Int32) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task").count
    }
}
