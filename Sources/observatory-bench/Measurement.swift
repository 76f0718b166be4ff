import Foundation

/// Runs a measurement several times and summarizes it: benchmarks on shared
/// machines are noisy, so we quote the median with the range.
struct Measurement {
    /// The figures of every run, in the scenario's unit.
    let runs: [Double]

    var median: Double {
        let sorted = runs.sorted()
        return sorted[sorted.count / 2]
    }

    var minimum: Double { runs.min() ?? .nan }
    var maximum: Double { runs.max() ?? .nan }

    /// `median (min–max)` with one decimal.
    var summary: String {
        "\(Self.format(median)) (\(Self.format(minimum))–\(Self.format(maximum)))"
    }

    static func format(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    /// Nanoseconds per operation of `body`, which performs `operations`
    /// operations.
    static func nanoseconds(perOperationOf operations: Int, _ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        let elapsed = clock.measure(body)
        let nanoseconds =
            Double(elapsed.components.seconds) * 1e9
            + Double(elapsed.components.attoseconds) / 1e9
        return nanoseconds / Double(operations)
    }
}

/// Reads this process's resident memory, for the memory scenarios.
enum ResidentMemory {
    /// Resident bytes, from /proc/self/statm (Linux).
    static func bytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
