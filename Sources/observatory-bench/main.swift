import Foundation

// observatory-bench: `swift run -c release observatory-bench core|server|storage|cluster`.
let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "core": try CoreBenchmark.run(arguments: Array(arguments.dropFirst()))
    case "server": try ServerBenchmark.run(arguments: Array(arguments.dropFirst()))
    case "storage": try StorageBenchmark.run(arguments: Array(arguments.dropFirst()))
    case "cluster": try ClusterBenchmark.run(arguments: Array(arguments.dropFirst()))
    default: throw BenchmarkError.unknownSuite(arguments.first ?? "")
    }
} catch {
    FileHandle.standardError.write(Data("observatory-bench: \(error)\n".utf8))
    exit(2)
}
