import Foundation
import ObservatoryTestSupport
import ObservatoryWire
import Testing

@testable import ObservatoryServer

/// How late keys go on a cluster node when 10,000 of them expire in the same
/// second: written in batches from several connections at once, each with
/// the `ttl` that makes its keys' deadlines fall in one second, so that their
/// leases end together.
@Suite(.requiresEtcd, .serialized, .timeLimit(.minutes(3)))
struct ClusterExpiryBurstTests {
    static let keyCount = 10_000
    /// Sets a batch takes: a node writes each set as two etcd operations (the
    /// value and the removal of its deletion marker), and etcd takes at most
    /// 128 in a transaction by default (`--max-txn-ops`), so a batch of 128
    /// sets is refused there.
    static let batchSize = 64
    /// Connections that write at once, so that etcd commits their
    /// transactions together.
    static let writerCount = 4
    /// The deadlines' second, counted from the start of the writes: long
    /// enough for every write to land and its update to be read before the
    /// first key goes.
    static let targetSeconds: Int64 = 16

    /// Every key goes with an expired delete, none before its deadline; the
    /// lateness of each (the arrival of its delete at an observer minus its
    /// deadline) is printed as p50, p99 and max. The protocol's bound for
    /// cluster mode (2 s) is not asserted: on the project's loaded 2-core
    /// machines a burst of 10,000 in one second took 6 to 10 s
    /// (docs/benchmarks.md, "Expiry lateness on a cluster node").
    @Test func tenThousandKeysExpiringInTheSameSecondAllGoAsExpiredAndNoneEarly() async throws {
        try await EtcdCluster.withCluster(members: 1) { etcd in
            let cluster = try ClusterNodes(1, on: etcd)
            let observer = try cluster.client(0, name: "observer")
            #expect(try observer.request(#"{"op":"observe","prefix":"burst."}"#)["ok"] == true)
            let writers = try (0..<Self.writerCount).map { try cluster.client(0, name: "burst\($0)") }
            // Writing 10,000 keys through a node takes seconds, so each wave of
            // batches gets the ttl that ends in the same second, and none is
            // sent late in a second, where the node could plan it in the next.
            let target = KeyExpiry.wallMilliseconds() / 1_000 + Self.targetSeconds
            let batches = Self.batchFrames()
            let writing = ContinuousClock.now
            for wave in stride(from: 0, to: batches.count, by: Self.writerCount) {
                if KeyExpiry.wallMilliseconds() % 1_000 > 700 {
                    let now = KeyExpiry.wallMilliseconds()
                    try waitUntil("a new second starts", timeout: .seconds(2)) {
                        KeyExpiry.wallMilliseconds() / 1_000 > now / 1_000
                    }
                }
                let ttl = target - KeyExpiry.wallMilliseconds() / 1_000
                try #require(ttl >= 2, "the writes took over \(Self.targetSeconds - 2) s")
                let wave = batches[wave..<min(wave + Self.writerCount, batches.count)]
                for (writer, batch) in zip(writers, wave) { try writer.send(batch(ttl)) }
                for writer in writers.prefix(wave.count) {
                    let reply = try writer.next()
                    try #require(reply["ok"] == true, "\(reply)")
                }
            }
            let written = ContinuousClock.now - writing
            var deadlines: [String: Int64] = [:]
            var lateness: [Int64] = []
            while lateness.count < Self.keyCount {
                let silence = Double(Self.targetSeconds) + 30
                let line = try #require(try observer.nextLine(timeout: silence), "events stopped coming")
                let arrived = KeyExpiry.wallMilliseconds()
                let event = try JSONValue.parse(line)
                let key = try #require(event["key"]?.stringValue, "\(event)")
                guard event["event"] == "delete" else {
                    // Its update: the node's cache holds the key by now.
                    let entry = try #require(cluster[0].server.store.get(key), "\(key) is not in the cache: \(event)")
                    deadlines[key] = try #require(entry.expiry?.deadline, "\(key) has no expiry: \(entry)")
                    continue
                }
                #expect(event["reason"] == "expired")
                let deadline = try #require(deadlines[key], "a delete before the update of \(key)")
                lateness.append(arrived - deadline)
            }
            lateness.sort()
            let seconds = Set(deadlines.values.map { $0 / 1_000 })
            let spread = (deadlines.values.max() ?? 0) - (deadlines.values.min() ?? 0)
            let (p50, p99) = (lateness[lateness.count / 2], lateness[lateness.count * 99 / 100])
            print(
                "cluster expiry lateness of \(Self.keyCount) keys (deadlines in \(seconds.count) second(s), "
                    + "\(spread) ms apart, written in \(written)): min \(lateness[0]) ms, p50 \(p50) ms, "
                    + "p99 \(p99) ms, max \(lateness[lateness.count - 1]) ms")
            #expect(deadlines.count == Self.keyCount)
            #expect(lateness[0] >= 0, "a key went before its deadline")
        }
    }

    /// The writes: `keyCount` keys in batches of `batchSize`, each batch a
    /// frame for a given `ttl`.
    static func batchFrames() -> [(Int64) -> String] {
        stride(from: 0, to: keyCount, by: batchSize).map { first in
            { ttl in
                let operations = (first..<min(first + batchSize, keyCount)).map { index in
                    #"{"op":"set","key":"burst.\#(index)","value":1,"ttl":\#(ttl)}"#
                }
                return #"{"op":"batch","id":\#(first),"ops":[\#(operations.joined(separator: ","))]}"#
            }
        }
    }
}
