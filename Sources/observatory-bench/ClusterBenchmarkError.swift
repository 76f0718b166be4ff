/// Why `observatory-bench cluster` could not measure, each with what to do about it.
enum ClusterBenchmarkError: Error, CustomStringConvertible {
    /// No `etcd` binary where it was looked for.
    case etcdMissing(String)
    /// The etcd members did not accept a write in time.
    case etcdNotReady(seconds: Int, log: String)
    /// No observatoryd binary was given or found beside the benchmark.
    case daemonMissing(String)

    /// A stable name for scripts.
    var code: String {
        switch self {
        case .etcdMissing: "etcd_missing"
        case .etcdNotReady: "etcd_not_ready"
        case .daemonMissing: "daemon_missing"
        }
    }

    var description: String {
        switch self {
        case .etcdMissing(let path):
            "\(code): no etcd executable (\(path)): install it (`apt-get install -y etcd-server`) "
                + "or pass --etcd-binary PATH"
        case .etcdNotReady(let seconds, let log):
            "\(code): etcd did not accept a put within \(seconds) s (another etcd on the ports? a full disk?); "
                + "its log ends: \(log)"
        case .daemonMissing(let path):
            "\(code): no observatoryd at \(path): build it (`swift build -c release`) or pass --binary PATH"
        }
    }
}
