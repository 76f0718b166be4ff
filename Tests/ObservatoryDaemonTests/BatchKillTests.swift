import Foundation
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// docs/protocol.md, "Batches": with storage on, a batch is durable as a whole.
/// Spawned `observatoryd` processes are killed with SIGKILL while 50 writers
/// send 20-key batches, and restarted on the same directory.
@Suite(.timeLimit(.minutes(5))) struct BatchKillTests {
    private let launcher = DaemonLauncher()
    private let directory: TemporaryDirectory
    private static let writers = 50

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test(arguments: [FsyncPolicy.always, .everysec])
    func afterEveryKillEachBatchIsWholeOrAbsentAndEveryAcknowledgedOneIsThere(fsync: FsyncPolicy) throws {
        let arguments = ["--fsync", fsync.rawValue, "--data", directory.path(of: "data")]
        var acknowledged = Array(repeating: 0, count: Self.writers)
        var sent = acknowledged
        var reached = acknowledged
        for cycle in 0..<4 {
            let (process, _, port, _) = try launcher.launchListening(arguments)
            defer { launcher.stopIfRunning(process) }
            reached = try verify(acknowledged: acknowledged, sent: sent, port: port, cycle: cycle)
            let storm = BatchStorm(writers: Self.writers, port: port, continuingAfter: reached)
            let target = storm.acknowledgedCount + Self.writers * 3
            try waitUntil("\(target) batches acknowledged", timeout: .seconds(60)) {
                storm.acknowledgedCount >= target || !storm.failures.isEmpty
            }
            #expect(kill(process.processIdentifier, SIGKILL) == 0)
            storm.waitUntilStopped()
            process.waitUntilExit()
            #expect(storm.failures.isEmpty, "\(storm.failures.prefix(3))")
            acknowledged = storm.acknowledged
            sent = storm.sent
        }
        let (process, _, port, _) = try launcher.launchListening(arguments)
        defer { launcher.stopIfRunning(process) }
        _ = try verify(acknowledged: acknowledged, sent: sent, port: port, cycle: 4)
    }

    /// Every writer's keys hold one batch, at one version, no older than the
    /// last acknowledged and no newer than the last sent; returns each writer's batch.
    private func verify(acknowledged: [Int], sent: [Int], port: Int, cycle: Int) throws -> [Int] {
        let client = try LineClient(port: port)
        var reached: [Int] = []
        for writer in 0..<Self.writers {
            var values = Set<Int64>()
            var versions = Set<Int64>()
            for index in 0..<BatchStorm.keysPerBatch {
                let reply = try client.request(#"{"op":"get","key":"\#(BatchStorm.key(writer, index))"}"#)
                values.insert(reply["value"]?.integerValue ?? 0)
                versions.insert(reply["version"]?.integerValue ?? 0)
            }
            #expect(
                values.count == 1 && versions.count == 1, "cycle \(cycle), writer \(writer): part of a batch \(values)")
            let number = Int(values.max() ?? 0)
            #expect(
                number >= acknowledged[writer] && number <= sent[writer],
                "cycle \(cycle), writer \(writer): batch \(number), acknowledged \(acknowledged[writer]), sent \(sent[writer])"
            )
            reached.append(number)
        }
        return reached
    }
}
