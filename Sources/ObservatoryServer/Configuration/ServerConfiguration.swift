import Foundation
import ObservatoryLogging

/// Every setting of the server, each with its default.
///
/// `ServerConfiguration()` is what `observatoryd` runs with when given nothing:
/// 127.0.0.1:7070, changes stored in `./data` with fsync `everysec`, no
/// authentication. Set `fsync` to `none` to keep everything in memory. Programs embedding
/// the server set the fields directly, or read a file with `load(path:readFile:)`;
/// the daemon layers its flags and environment over the file (flag > environment >
/// file > default).
public struct ServerConfiguration: Sendable, Equatable, Decodable {
    /// The address to listen on (an IPv4 or IPv6 literal, or `localhost`).
    public var host = "127.0.0.1"
    /// The TCP port; `0` picks a free port (see `Server.port`).
    public var port = 7070
    /// The data directory for the change log and snapshots. Not used while `fsync` is `none`.
    public var dataDirectory = "data"
    /// When changes reach the disk; `none` keeps everything in memory.
    public var fsync = FsyncPolicy.everysec
    /// Log bytes written since the last snapshot beyond which storage compacts (64 MiB).
    public var compactionLogBytes = 64 << 20
    /// The lowest level the daemon logs.
    public var logLevel = LogLevel.info
    /// Event loops (threads) serving the connections; `0` picks one per two cores, at least one.
    public var ioThreads = 0
    /// How long shutdown waits for clients to take their last bytes, in milliseconds.
    public var shutdownGraceMilliseconds = 2_000
    /// With authentication on, how long a connection may stay without a successful
    /// `hello` before it is closed, in milliseconds; `0` never closes it.
    public var authTimeoutMilliseconds = 10_000
    /// How long a connection may send nothing before it is closed, in milliseconds;
    /// `0` (the default) never closes it. Clients that only observe should ping.
    public var idleTimeoutMilliseconds = 0
    /// The limits per server and per connection.
    public var limits = ServerLimits()
    /// Tokens, a tokens file and anonymous rights; no token means no authentication.
    public var auth = AuthConfiguration()
    /// Cluster mode: the state lives in etcd, shared with every daemon on the same
    /// members and prefix; `nil` (the default) keeps it in this process.
    public var cluster: ClusterConfiguration?

    /// The defaults.
    public init() {}

    static let settingNames = [
        "host", "port", "data", "fsync", "compactionLogBytes", "logLevel", "ioThreads", "shutdownGraceMilliseconds",
        "authTimeoutMilliseconds", "idleTimeoutMilliseconds",
        "limits", "auth", "tokens", "cluster",
    ]

    /// Reads a configuration file's object strictly, keeping defaults for absent settings.
    /// Values are checked by `validate()`, not here.
    public init(from decoder: any Decoder) throws {
        let settings = try StrictSettings(decoder, known: Self.settingNames)
        host = try settings.read("host", as: String.self, expected: "a string") ?? host
        port = try settings.read("port", as: Int.self, expected: "an integer") ?? port
        dataDirectory = try settings.read("data", as: String.self, expected: "a string") ?? dataDirectory
        if let text = try settings.read("fsync", as: String.self, expected: "a string") {
            fsync = try Self.fsyncPolicy(text, setting: "fsync")
        }
        compactionLogBytes =
            try settings.read("compactionLogBytes", as: Int.self, expected: "an integer") ?? compactionLogBytes
        if let text = try settings.read("logLevel", as: String.self, expected: "a string") {
            logLevel = try Self.logLevel(text, setting: "logLevel")
        }
        ioThreads = try settings.read("ioThreads", as: Int.self, expected: "an integer") ?? ioThreads
        shutdownGraceMilliseconds =
            try settings.read("shutdownGraceMilliseconds", as: Int.self, expected: "an integer")
            ?? shutdownGraceMilliseconds
        authTimeoutMilliseconds =
            try settings.read("authTimeoutMilliseconds", as: Int.self, expected: "an integer")
            ?? authTimeoutMilliseconds
        idleTimeoutMilliseconds =
            try settings.read("idleTimeoutMilliseconds", as: Int.self, expected: "an integer")
            ?? idleTimeoutMilliseconds
        limits = try settings.read("limits", as: ServerLimits.self, expected: "an object") ?? limits
        if try settings.read("tokens", as: JSONAny.self, expected: "anything") != nil {
            throw ConfigurationError.replacedSetting(
                "tokens",
                by:
                    #"{"auth": {"tokens": [{"token": "...", "author": "alice", "read": ["sky.*"], "write": ["sky.*"]}]}}; "#
                    + #"rules are exact keys or prefixes ending in "*": the old prefix "sky." is now "sky.*", "" is "*""#
            )
        }
        auth = try settings.read("auth", as: AuthConfiguration.self, expected: "an object") ?? auth
        cluster = try settings.read("cluster", as: ClusterConfiguration.self, expected: "an object")
    }

    /// Throws a `ConfigurationError` naming the first setting that cannot work.
    public func validate() throws {
        if host.isEmpty {
            throw ConfigurationError.invalidValue(setting: "host", value: host, allowed: "an IP address or localhost")
        }
        try ServerLimits.check("port", port, 0...65_535)
        if dataDirectory.isEmpty {
            throw ConfigurationError.invalidValue(setting: "data", value: "", allowed: "a directory path")
        }
        try ServerLimits.check("compactionLogBytes", compactionLogBytes, 4_096...(1 << 40))
        try ServerLimits.check("ioThreads", ioThreads, 0...64)
        try ServerLimits.check("shutdownGraceMilliseconds", shutdownGraceMilliseconds, 0...600_000)
        try ServerLimits.check("authTimeoutMilliseconds", authTimeoutMilliseconds, 0...86_400_000)
        try ServerLimits.check("idleTimeoutMilliseconds", idleTimeoutMilliseconds, 0...86_400_000)
        try limits.validate()
        try cluster?.validate()
        var seen = Set<[UInt8]>()
        for (index, entry) in auth.tokens.enumerated() where !seen.insert(Array(entry.token.utf8)).inserted {
            throw ConfigurationError.invalidValue(
                setting: "auth.tokens[\(index)].token", value: "(hidden)", allowed: "a token not listed before")
        }
    }

    /// Whether clients must present a token in `hello` (to do more than `anonymous` allows).
    public var requiresAuthentication: Bool { !auth.tokens.isEmpty }

    /// The fsync policy `text` names; `setting` (`fsync`, or the flag or variable it came from) is for the error.
    package static func fsyncPolicy(_ text: String, setting: String) throws -> FsyncPolicy {
        guard let policy = FsyncPolicy(rawValue: text) else {
            throw ConfigurationError.invalidValue(setting: setting, value: text, allowed: "always, everysec, none")
        }
        return policy
    }

    /// The log level `text` names; `setting` (`logLevel`, or the flag or variable it came from) is for the error.
    package static func logLevel(_ text: String, setting: String) throws -> LogLevel {
        guard let level = LogLevel(rawValue: text) else {
            let allowed = LogLevel.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError.invalidValue(setting: setting, value: text, allowed: allowed)
        }
        return level
    }
}
