/// Cluster mode's settings (docs/protocol.md, "Cluster mode"): the etcd members that
/// hold the state, the prefix of its keys there, and how long a dead node's
/// session-bound keys outlive it.
public struct ClusterConfiguration: Sendable, Equatable, Decodable {
    /// The etcd members' client URLs, `http://host:port`; none (as in
    /// `Config/observatory.json`) leaves cluster mode off.
    public var etcd: [String] = []
    /// The prefix of every etcd key of this state; daemons on one etcd with one
    /// prefix share one state.
    public var prefix = "observatory/"
    /// The time to live of the node's lease, to which its sessions' session-bound
    /// keys are attached: such a key goes at most this long after the daemon
    /// holding its session died.
    public var sessionTTLSeconds = 10
    /// How long one etcd request may take before a write answers `unavailable`.
    public var requestTimeoutMilliseconds = 5_000

    /// The defaults, with no members: cluster mode stays off until one is given.
    public init(etcd: [String] = []) {
        self.etcd = etcd
    }

    static let settingNames = ["etcd", "prefix", "sessionTTLSeconds", "requestTimeoutMilliseconds"]

    /// Reads the config file's `cluster` object strictly.
    public init(from decoder: any Decoder) throws {
        let settings = try StrictSettings(decoder, known: Self.settingNames)
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
