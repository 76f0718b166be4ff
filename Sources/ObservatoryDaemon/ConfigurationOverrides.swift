import Foundation
import ObservatoryServer

/// Settings given outside the configuration file, by flags or environment variables,
/// each remembering where it came from so an error can say so.
public struct ConfigurationOverrides: Sendable, Equatable {
    /// One overriding value as text, and its source (`--port`, `OBSERVATORY_PORT`).
    public struct Value: Sendable, Equatable {
        /// The text given.
        public var text: String
        /// The flag or variable it came from.
        public var source: String

        /// Creates a value from `source`.
        public init(_ text: String, source: String) {
            self.text = text
            self.source = source
        }
    }

    /// The configuration file to read.
    public var configPath: Value?
    /// Overrides `host`.
    public var host: Value?
    /// Overrides `port`.
    public var port: Value?
    /// Overrides `data`.
    public var dataDirectory: Value?
    /// Overrides `fsync`.
    public var fsync: Value?
    /// Overrides `logLevel`.
    public var logLevel: Value?
    /// Overrides `auth.tokensFile`.
    public var tokensFile: Value?
    /// Overrides `cluster.etcd`: comma-separated URLs; turns cluster mode on.
    public var etcd: Value?
    /// Overrides `cluster.prefix`.
    public var etcdPrefix: Value?

    /// No overrides.
    public init() {}

    /// The overrides in `OBSERVATORY_CONFIG`, `OBSERVATORY_HOST`, `OBSERVATORY_PORT`,
    /// `OBSERVATORY_DATA`, `OBSERVATORY_FSYNC`, `OBSERVATORY_LOG_LEVEL`,
    /// `OBSERVATORY_TOKENS_FILE`, `OBSERVATORY_ETCD` and `OBSERVATORY_ETCD_PREFIX`.
    ///
    /// `OBSERVATORY_HOST` and `OBSERVATORY_PORT` are the daemon's address: where it
    /// listens, and where the CLI and the examples connect. A list of servers for
    /// clients is `OBSERVATORY_SERVERS`, which the daemon does not read.
    public init(environment: [String: String]) {
        func value(_ name: String) -> Value? {
            environment[name].map { Value($0, source: name) }
        }
        configPath = value("OBSERVATORY_CONFIG")
        host = value("OBSERVATORY_HOST")
        port = value("OBSERVATORY_PORT")
        dataDirectory = value("OBSERVATORY_DATA")
        fsync = value("OBSERVATORY_FSYNC")
        logLevel = value("OBSERVATORY_LOG_LEVEL")
        tokensFile = value("OBSERVATORY_TOKENS_FILE")
        etcd = value("OBSERVATORY_ETCD")
        etcdPrefix = value("OBSERVATORY_ETCD_PREFIX")
    }

    /// Applies these overrides to `configuration`; a value that does not parse is an
    /// error naming the setting and the flag or variable.
    public func apply(to configuration: inout ServerConfiguration) throws {
        if let host {
            try Self.checkListenAddress(host)
            configuration.host = host.text
        }
        if let port {
            guard let number = Int(port.text) else {
                throw ConfigurationError.wrongType(setting: "port (\(port.source))", expected: "an integer")
            }
            configuration.port = number
        }
        if let dataDirectory { configuration.dataDirectory = dataDirectory.text }
        if let fsync {
            configuration.fsync = try ServerConfiguration.fsyncPolicy(fsync.text, setting: "fsync (\(fsync.source))")
        }
        if let tokensFile { configuration.auth.tokensFile = tokensFile.text }
        if let logLevel {
            configuration.logLevel = try ServerConfiguration.logLevel(
                logLevel.text, setting: "logLevel (\(logLevel.source))")
        }
        if let etcd {
            var cluster = configuration.cluster ?? ClusterConfiguration()
            cluster.etcd = etcd.text.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces)) }
            configuration.cluster = cluster
        }
        if let etcdPrefix {
            guard var cluster = configuration.cluster, !cluster.etcd.isEmpty else {
                throw ConfigurationError.invalidValue(
                    setting: "cluster.prefix (\(etcdPrefix.source))", value: etcdPrefix.text,
                    allowed: "a prefix together with etcd members (--etcd, OBSERVATORY_ETCD or the file's cluster.etcd)"
                )
            }
            cluster.prefix = etcdPrefix.text
            configuration.cluster = cluster
        }
    }

    /// A listen address is one host, without a port: a list (meant for clients, as
    /// `OBSERVATORY_SERVERS`) or a `host:port` is an error naming where it came from.
    static func checkListenAddress(_ host: Value) throws {
        let colons = host.text.filter { $0 == ":" }.count
        if host.text.contains(",") {
            throw ConfigurationError.invalidValue(
                setting: "host (\(host.source))", value: host.text,
                allowed: "one address to listen on (the daemon serves one); "
                    + "a list of servers for clients goes in OBSERVATORY_SERVERS")
        }
        if colons == 1 {
            throw ConfigurationError.invalidValue(
                setting: "host (\(host.source))", value: host.text,
                allowed: "an address without a port; the port goes in --port or OBSERVATORY_PORT")
        }
    }
}
