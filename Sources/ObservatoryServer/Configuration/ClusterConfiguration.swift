/// Cluster mode's settings (PROTOCOL.md, "Cluster mode"): the etcd members that
/// hold the state, the prefix of its keys there, and how long a dead node's
/// session-bound keys outlive it.
public struct ClusterConfiguration: Sendable, Equatable, Decodable {
    /// The etcd members' client URLs, `http://host:port`.
    public var etcd: [String] = []
    /// The prefix of every etcd key of this state; daemons on one etcd with one
    /// prefix share one state.
    public var prefix = "observatory/"
    /// The time to live of a session's lease: a session-bound key goes at most this
    /// long after the daemon holding its session died.
    public var sessionTTLSeconds = 10
    /// How long one etcd request may take before a write answers `unavailable`.
    public var requestTimeoutMilliseconds = 5_000

    /// The defaults, with no members (cluster mode needs at least one).
    public init(etcd: [String] = []) {
        self.etcd = etcd
    }

    /// Reads the config file's `cluster` object strictly.
    public init(from decoder: any Decoder) throws {
        let settings = try StrictSettings(
            decoder, known: ["etcd", "prefix", "sessionTTLSeconds", "requestTimeoutMilliseconds"])
        etcd = try settings.read("etcd", as: [String].self, expected: "an array of URLs") ?? etcd
        prefix = try settings.read("prefix", as: String.self, expected: "a string") ?? prefix
        sessionTTLSeconds =
            try settings.read("sessionTTLSeconds", as: Int.self, expected: "an integer") ?? sessionTTLSeconds
        requestTimeoutMilliseconds =
            try settings.read("requestTimeoutMilliseconds", as: Int.self, expected: "an integer")
            ?? requestTimeoutMilliseconds
    }

    /// Throws a `ConfigurationError` naming the first setting that cannot work.
    public func validate() throws {
        if etcd.isEmpty {
            throw ConfigurationError.invalidValue(setting: "cluster.etcd", value: "[]", allowed: "one URL or more")
        }
        for url in etcd where !url.hasPrefix("http://") {
            throw ConfigurationError.invalidValue(setting: "cluster.etcd", value: url, allowed: "http://host:port")
        }
        if prefix.isEmpty {
            throw ConfigurationError.invalidValue(setting: "cluster.prefix", value: "", allowed: "a non-empty string")
        }
        try ServerLimits.check("cluster.sessionTTLSeconds", sessionTTLSeconds, 1...3_600)
        try ServerLimits.check("cluster.requestTimeoutMilliseconds", requestTimeoutMilliseconds, 100...600_000)
    }
}
