import Dispatch
import Foundation
import Observatory
import ObservatoryServer
import ObservatoryWire

/// `observatory-bench storage`: what storage costs where users feel it, in this
/// process (no network): start-up time at a million keys, read from the log alone
/// and from a snapshot, and the longest stall a writer sees while compaction runs.
///
/// Options: `--keys N` (default 1,000,000), `--runs R` (default 3), `--directory DIR`
/// (default a new folder under the system's temporary folder, removed after).
enum StorageBenchmark {
    static func run(arguments: [String]) throws {
        let keys = try integer(after: "--keys", in: arguments) ?? 1_000_000
        let runs = try integer(after: "--runs", in: arguments) ?? 3
        let parent = value(after: "--directory", in: arguments) ?? NSTemporaryDirectory()
        let directory = parent + "/observatory-bench-storage-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = configuration(directory)

        print("| scenario (\(keys) keys of 64-byte values, fsync everysec) | median (min–max) |")
        print("|---|---|")
        let filled = try fill(configuration, keys: keys)
        print("| writing them, one set at a time | \(Measurement.format(filled)) s |")
        print("| start-up from the log alone | \(try startUp(configuration, runs: runs).summary) s |")
        let store = try SharedStore.open(configuration: configuration)
        try store.storage?.compactNow()
        store.storage?.close()
        print("| start-up from a snapshot | \(try startUp(configuration, runs: runs).summary) s |")
        let stalls = try (0..<runs).map { _ in try longestStallDuringCompaction(configuration, keys: keys) }
        print("| longest writer stall during compaction | \(Measurement(runs: stalls.map(\.longest)).summary) ms |")
        print("| writer's p99.9 during compaction | \(Measurement(runs: stalls.map(\.p999)).summary) ms |")
        print("| compaction time | \(Measurement(runs: stalls.map(\.seconds)).summary) s |")
        print("\nMedian of \(runs) runs. Data in \(parent).")
    }

    private static func configuration(_ directory: String) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.dataDirectory = directory
        configuration.fsync = .everysec
        configuration.limits.maxKeys = 10_000_000
        // Only the compactions the benchmark asks for.
        configuration.compactionLogBytes = 1 << 40
        return configuration
    }

    /// A 64-byte JSON value: a string of 62 characters and its quotes.
    private static func value(_ index: Int) -> EncodedJSON {
        let digits = String(index)
        return EncodedJSON(.string(String(repeating: "v", count: 62 - digits.count) + digits))
    }

    private static func fill(_ configuration: ServerConfiguration, keys: Int) throws -> Double {
        let store = try SharedStore.open(configuration: configuration)
        defer { store.storage?.close() }
        let author = Author(name: "bench", session: "s1")
        let started = DispatchTime.now().uptimeNanoseconds
        for index in 0..<keys {
            try store.set("bench.key.\(index)", to: value(index), by: author)
        }
        return Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
    }

    private static func startUp(_ configuration: ServerConfiguration, runs: Int) throws -> Measurement {
        Measurement(
            runs: try (0..<runs).map { _ in
                let started = DispatchTime.now().uptimeNanoseconds
                let store = try SharedStore.open(configuration: configuration)
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                store.storage?.close()
                return seconds
            })
    }

    /// One writer sets keys as fast as it can while a compaction runs; every set is timed.
    private static func longestStallDuringCompaction(
        _ configuration: ServerConfiguration, keys: Int
    ) throws -> (longest: Double, p999: Double, seconds: Double) {
        let store = try SharedStore.open(configuration: configuration)
        defer { store.storage?.close() }
        let done = DispatchSemaphore(value: 0)
        let stop = Locked(false)
        let recorded = Locked<[UInt64]>([])
        Thread {
            let author = Author(name: "writer", session: "s2")
            var durations: [UInt64] = []
            var index = 0
            while !stop.withLock({ $0 }) {
                let started = DispatchTime.now().uptimeNanoseconds
                _ = try? store.set("bench.key.\(index % keys)", to: EncodedJSON(.integer(Int64(index))), by: author)
                durations.append(DispatchTime.now().uptimeNanoseconds - started)
                index += 1
            }
            recorded.withLock { $0 = durations }
            done.signal()
        }.start()
        let started = DispatchTime.now().uptimeNanoseconds
        try store.storage?.compactNow()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        stop.withLock { $0 = true }
        done.wait()
        let sorted = recorded.withLock { $0 }.sorted()
        let p999 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, sorted.count * 999 / 1_000)]
        return (Double(sorted.last ?? 0) / 1e6, Double(p999) / 1e6, seconds)
    }

    private static func value(after flag: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    private static func integer(after flag: String, in arguments: [String]) throws -> Int? {
        guard let text = value(after: flag, in: arguments) else { return nil }
        guard let number = Int(text), number > 0 else { throw BenchmarkError.badOption(flag, text) }
        return number
    }
}
