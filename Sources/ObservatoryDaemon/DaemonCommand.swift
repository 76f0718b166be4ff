import ObservatoryServer

/// What the `observatoryd` command line asks for: run the server, or print help or
/// the version. Parsed by the pure `parse(_:)`, so the daemon's `main.swift` stays thin.
public enum DaemonCommand: Sendable, Equatable {
    /// Run the server with these flag overrides.
    case run(ConfigurationOverrides)
    /// Check the data directory (from these overrides, the environment or the file) and exit.
    case check(ConfigurationOverrides)
    /// Print `DaemonCommand.usage` and exit 0.
    case help
    /// Print the version (`Server.version`) and exit 0.
    case version

    /// The text printed by `--help`.
    public static let usage = """
        usage: observatoryd [options]

        Serves shared JSON values over TCP (protocol version 1).

        options (each overrides its environment variable, which overrides the file):
          --config PATH        configuration file (OBSERVATORY_CONFIG); default: none, built-in defaults
          --host ADDRESS       listen address, one host without a port (OBSERVATORY_HOST); default
                               127.0.0.1. The CLI connects to OBSERVATORY_HOST and OBSERVATORY_PORT too;
                               a list of servers for clients goes in OBSERVATORY_SERVERS
          --port N             listen port, 0 = any free port (OBSERVATORY_PORT); default 7070
          --data DIR           data directory (OBSERVATORY_DATA); default ./data
          --fsync POLICY       always | everysec | none (OBSERVATORY_FSYNC); default everysec;
                               none keeps everything in memory (no files, a new epoch at every start)
          --log-level LEVEL    debug | info | warning | error (OBSERVATORY_LOG_LEVEL); default info
          --etcd URL[,URL...]  cluster mode: keep the state in these etcd members (OBSERVATORY_ETCD),
                               shared with every daemon on them and the same prefix; default: off
          --etcd-prefix P      the etcd key prefix of the state (OBSERVATORY_ETCD_PREFIX); default observatory/
          --check              check the data directory without changing it, print what it holds, exit
          --help               print this text
          --version            print the version

        exit status: 0 after a clean shutdown (SIGTERM, SIGINT), 2 on a bad configuration,
        1 when the server cannot start (address in use, data directory locked, unwritable or damaged).
        --check exits 0 when the directory would load, 1 when it would not.
        """

    /// Parses the arguments after the program name. `--flag value` and `--flag=value`
    /// are both accepted; `--help` and `--version` win over everything else.
    ///
    /// - Throws: `ConfigurationError.unknownFlag` or `.missingFlagValue`.
    public static func parse(_ arguments: [String]) throws -> DaemonCommand {
        if arguments.contains("--help") || arguments.contains("-h") { return .help }
        if arguments.contains("--version") { return .version }
        var overrides = ConfigurationOverrides()
        var remaining = arguments[...]
        var isCheck = false
        while let argument = remaining.popFirst() {
            if argument == "--check" {
                isCheck = true
                continue
            }
            let (flag, inlineValue) = split(argument)
            guard let field = fields[flag] else { throw ConfigurationError.unknownFlag(argument) }
            guard let text = inlineValue ?? remaining.popFirst() else {
                throw ConfigurationError.missingFlagValue(flag: flag)
            }
            overrides[keyPath: field] = ConfigurationOverrides.Value(text, source: flag)
        }
        return isCheck ? .check(overrides) : .run(overrides)
    }

    // Computed, not stored: key paths are not Sendable, so a static table would be shared mutable state.
    private static var fields: [String: WritableKeyPath<ConfigurationOverrides, ConfigurationOverrides.Value?>] {
        [
            "--config": \.configPath,
            "--host": \.host,
            "--port": \.port,
            "--data": \.dataDirectory,
            "--fsync": \.fsync,
            "--log-level": \.logLevel,
            "--etcd": \.etcd,
            "--etcd-prefix": \.etcdPrefix,
        ]
    }

    private static func split(_ argument: String) -> (flag: String, value: String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
