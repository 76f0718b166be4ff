import Foundation
import Observatory

/// The core library's benchmark: each scenario next to the same work done
/// with a plain array of closures, the floor, measured in the same run.
enum CoreBenchmark {
    static let runs = 5

    /// A handler's side effect, so that no work is optimized away.
    final class Counter: @unchecked Sendable {
        var count = 0
    }

    final class Watcher: Observer {
        let receiver = Receiver()
    }

    struct Scenario {
        let name: String
        let unit: String
        let ours: () -> Double
        let floor: () -> Double
    }

    static func run(arguments: [String]) throws {
        if arguments.first == "--memory-probe" {
            print(try memoryProbe(arguments.dropFirst().first ?? ""))
            return
        }
        // Letters select scenarios (`core a d`); none runs them all.
        let selected = scenarios.filter { scenario in
            arguments.isEmpty || arguments.contains { scenario.name.hasPrefix("(\($0))") }
        }
        print("| scenario | Observatory | closure-array floor | ratio |")
        print("|---|---|---|---|")
        for scenario in selected {
            var ours: [Double] = []
            var floor: [Double] = []
            for _ in 0..<runs {
                ours.append(scenario.ours())
                floor.append(scenario.floor())
            }
            let oursMeasurement = Measurement(runs: ours)
            let floorMeasurement = Measurement(runs: floor)
            let ratio = oursMeasurement.median / floorMeasurement.median
            print(
                "| \(scenario.name) | \(oursMeasurement.summary) \(scenario.unit) | \(floorMeasurement.summary) \(scenario.unit) | \(String(format: "%.1f", ratio))× |"
            )
        }
        print("\nMedian of \(runs) runs (min–max). Memory: resident-set growth in a fresh process per run.")
    }

    static var scenarios: [Scenario] {
        [
            Scenario(
                name: "(a) send to 1 observer, 10^6 messages", unit: "ns",
                ours: { sendToObservers(observers: 1, messages: 1_000_000) },
                floor: { callClosures(closures: 1, messages: 1_000_000) }),
            Scenario(
                name: "(b) 100 observers, 10^5 messages, per delivery", unit: "ns",
                ours: { sendToObservers(observers: 100, messages: 100_000) },
                floor: { callClosures(closures: 100, messages: 100_000) }),
            Scenario(
                name: "(c) 10,000 observers, 100 messages, per delivery", unit: "ns",
                ours: { sendToObservers(observers: 10_000, messages: 100) },
                floor: { callClosures(closures: 10_000, messages: 100) }),
            Scenario(
                name: "(d) Var<Int> set, 1 observer, 10^6 sets", unit: "ns",
                ours: { setVariable(sets: 1_000_000) },
                floor: { setPlainValue(sets: 1_000_000) }),
            Scenario(
                name: "(e) observe + stop observing, 10^5 pairs", unit: "ns",
                ours: { observeAndStop(pairs: 100_000) },
                floor: { appendAndRemoveClosure(pairs: 100_000) }),
            Scenario(
                name: "(f) memory per live observation, 100,000 observations", unit: "bytes",
                ours: { probeInFreshProcess("observations") },
                floor: { probeInFreshProcess("closures") }),
            Scenario(
                name: "(g) ad hoc map→filter→map, 1 observer, 10^6 messages", unit: "ns",
                ours: { sendThroughChain(messages: 1_000_000) },
                floor: { callChainClosures(messages: 1_000_000) }),
            Scenario(
                name: "(h) 100,000 observers of one messenger die, total", unit: "ms",
                ours: { observersDie(count: 100_000) },
                floor: { closuresDropped(count: 100_000) }),
        ]
    }

    // MARK: Teardown

    /// The observers die in the order they started observing (the server's case:
    /// connections observing one key go away).
    static func observersDie(count: Int) -> Double {
        let messenger = Messenger<Int>()
        var watchers = (0..<count).map { _ in Watcher() }
        for watcher in watchers {
            watcher.observe(messenger) { (_: Int) in }
        }
        let nanoseconds = Measurement.nanoseconds(perOperationOf: 1) { watchers.removeAll() }
        return withExtendedLifetime(messenger) { nanoseconds / 1e6 }
    }

    static func closuresDropped(count: Int) -> Double {
        let counter = Counter()
        var closures: [(Int) -> Void] = (0..<count).map { _ in { counter.count &+= $0 } }
        return Measurement.nanoseconds(perOperationOf: 1) { closures.removeAll() } / 1e6
    }

    // MARK: Sending

    static func sendToObservers(observers count: Int, messages: Int) -> Double {
        let messenger = Messenger<Int>()
        let counter = Counter()
        let watchers = (0..<count).map { _ in Watcher() }
        for watcher in watchers {
            watcher.observe(messenger) { counter.count &+= $0 }
        }
        return withExtendedLifetime(watchers) {
            Measurement.nanoseconds(perOperationOf: messages * count) {
                for message in 0..<messages { messenger.send(message) }
            }
        }
    }

    static func callClosures(closures count: Int, messages: Int) -> Double {
        let counter = Counter()
        let closures: [(Int) -> Void] = (0..<count).map { _ in { counter.count &+= $0 } }
        return Measurement.nanoseconds(perOperationOf: messages * count) {
            for message in 0..<messages {
                for closure in closures { closure(message) }
            }
        }
    }

    // MARK: Variables

    static func setVariable(sets: Int) -> Double {
        let number = Var(0)
        let counter = Counter()
        let watcher = Watcher()
        watcher.observe(number) { counter.count &+= $0.new - $0.old }
        return withExtendedLifetime(watcher) {
            Measurement.nanoseconds(perOperationOf: sets) {
                for value in 1...sets { number.value = value }
            }
        }
    }

    static func setPlainValue(sets: Int) -> Double {
        final class PlainVariable {
            var value = 0
            var closures: [(Int, Int) -> Void] = []
            func set(_ newValue: Int) {
                guard newValue != value else { return }
                let old = value
                value = newValue
                for closure in closures { closure(old, newValue) }
            }
        }
        let plain = PlainVariable()
        let counter = Counter()
        plain.closures.append { old, new in counter.count &+= new - old }
        return Measurement.nanoseconds(perOperationOf: sets) {
            for value in 1...sets { plain.set(value) }
        }
    }

    // MARK: Observing

    static func observeAndStop(pairs: Int) -> Double {
        let messenger = Messenger<Int>()
        let watcher = Watcher()
        let counter = Counter()
        return Measurement.nanoseconds(perOperationOf: pairs) {
            for _ in 0..<pairs {
                watcher.observe(messenger) { counter.count &+= $0 }
                watcher.stopObserving(messenger)
            }
        }
    }

    static func appendAndRemoveClosure(pairs: Int) -> Double {
        final class ClosureList {
            var closures: [(Int) -> Void] = []
        }
        let list = ClosureList()
        let counter = Counter()
        return Measurement.nanoseconds(perOperationOf: pairs) {
            for _ in 0..<pairs {
                list.closures.append { counter.count &+= $0 }
                list.closures.removeLast()
            }
        }
    }

    // MARK: Chains

    static func sendThroughChain(messages: Int) -> Double {
        let messenger = Messenger<Int>()
        let counter = Counter()
        let watcher = Watcher()
        watcher.observe(messenger).map { $0 &* 3 }.filter { $0 & 1 == 0 }.map { $0 &+ 1 }.receive {
            counter.count &+= $0
        }
        return withExtendedLifetime(watcher) {
            Measurement.nanoseconds(perOperationOf: messages) {
                for message in 0..<messages { messenger.send(message) }
            }
        }
    }

    static func callChainClosures(messages: Int) -> Double {
        let counter = Counter()
        let triple: (Int) -> Int = { $0 &* 3 }
        let isEven: (Int) -> Bool = { $0 & 1 == 0 }
        let increment: (Int) -> Int = { $0 &+ 1 }
        let closures: [(Int) -> Void] = [
            { message in
                let tripled = triple(message)
                guard isEven(tripled) else { return }
                counter.count &+= increment(tripled)
            }
        ]
        return Measurement.nanoseconds(perOperationOf: messages) {
            for message in 0..<messages {
                for closure in closures { closure(message) }
            }
        }
    }

    // MARK: Memory

    static let memoryObservations = 100_000

    /// Starts this benchmark again as a child process that measures one kind
    /// of memory, so that every run starts from a clean heap.
    static func probeInFreshProcess(_ kind: String) -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["core", "--memory-probe", kind]
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            return .nan
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return Double(text) ?? .nan
    }

    /// Bytes per observation (or per closure, for the floor) of resident
    /// memory growth, with the observers themselves allocated beforehand.
    static func memoryProbe(_ kind: String) throws -> Double {
        let count = memoryObservations
        let counter = Counter()
        switch kind {
        case "observations":
            let messenger = Messenger<Int>()
            let watchers = (0..<count).map { _ in Watcher() }
            let before = ResidentMemory.bytes()
            for watcher in watchers {
                watcher.observe(messenger) { counter.count &+= $0 }
            }
            let after = ResidentMemory.bytes()
            withExtendedLifetime((messenger, watchers)) {}
            return Double(after - before) / Double(count)
        case "closures":
            var closures: [(Int) -> Void] = []
            let before = ResidentMemory.bytes()
            for _ in 0..<count {
                closures.append { counter.count &+= $0 }
            }
            let after = ResidentMemory.bytes()
            withExtendedLifetime(closures) {}
            return Double(after - before) / Double(count)
        default:
            throw BenchmarkError.unknownProbe(kind)
        }
    }
}

enum BenchmarkError: Error, CustomStringConvertible {
    case unknownProbe(String)
    case unknownSuite(String)
    case badOption(String, String)

    var description: String {
        switch self {
        case .unknownProbe(let kind): "unknown memory probe '\(kind)'"
        case .unknownSuite(let suite): "unknown benchmark '\(suite)': use core, server, storage or cluster"
        case .badOption(let flag, let value): "\(flag) takes a positive whole number, not '\(value)'"
        }
    }
}
