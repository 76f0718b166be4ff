import ObservatoryClient
import ObservatoryWire

/// A parsed `observatory` command line: the connection options and the command.
///
/// `parse(_:)` is pure, so every rule of the command line is unit tested
/// without a server:
///
///     let arguments = try CommandLineArguments.parse(["set", "sky.color", "red", "--port", "7071"])
///     // arguments.command == .set(key: "sky.color", value: "red"), arguments.port == 7071
public struct CommandLineArguments: Sendable, Equatable {
    /// The server's host name or address (`--host`, else `OBSERVATORY_SERVERS`, else
    /// `OBSERVATORY_HOST`, else 127.0.0.1), or several servers separated by commas,
    /// each `host` or `host:port`.
    public var host: String = "127.0.0.1"
    /// The server's TCP port (`--port`, else `OBSERVATORY_PORT`, else 7070), for hosts
    /// without a port of their own.
    public var port: Int = 7070

    /// The servers `--host` and `--port` name, in order; the client tries them in turn.
    ///
    ///     --host a.local:7070,b.local:7071   // two servers
    ///     --host a.local --port 7071         // one, on port 7071
    public var endpoints: [Endpoint] {
        host.split(separator: ",").compactMap { try? Endpoint(parsing: String($0), defaultPort: port) }
    }
    /// The token to authenticate with (`--token`), if the server wants one.
    public var token: String?
    /// The author name to say hello with (`--name`, default `observatory-cli`).
    public var name = "observatory-cli"

    /// Print the server's frames as JSON instead of readable text (`--json`).
    public var printsFrames = false
    /// `set --ephemeral`: bind the key to the command's session.
    private var sessionBound = false
    /// `set --ttl SECONDS`: make the key expire that many seconds after the write.
    private var ttl: Int64?
    /// `set --string`: the value is a string, whatever it looks like.
    private var valueIsString = false
    /// `watch --from REV`: resume after this revision.
    private var fromRevision: Int64?
    /// `watch --slow close|coalesce`: what the server does when the command falls behind.
    private var slowPolicy: SlowPolicy?
    private var historyAuthor: String?
    private var historyLimit: Int?
    private var newestFirst = false
    /// What to do.
    public var command: CommandLineCommand = .help

    /// Creates arguments with the defaults and the `help` command.
    public init() {}

    /// Parses the arguments after the program name.
    ///
    /// Options may appear anywhere; `--name value` and `--name=value` both
    /// work. An argument that starts with a single dash (`-5`) is a value, so
    /// negative numbers need no quoting; `--` ends the options. `--help` (or
    /// `-h`) after a command asks for that command's help, and `--version` wins
    /// over everything.
    ///
    /// - Parameters:
    ///   - environment: `OBSERVATORY_HOST`, `OBSERVATORY_PORT` and `OBSERVATORY_SERVERS`
    ///     name the server when `--host` and `--port` do not.
    ///   - input: where `set KEY -` and `set KEY @PATH` read their value.
    /// - Throws: ``CommandLineUsageError`` with a message saying what to fix.
    public static func parse(
        _ arguments: [String], environment: [String: String] = [:], input: CommandLineInput = .none
    ) throws(CommandLineUsageError) -> CommandLineArguments {
        var result = CommandLineArguments()
        // A bad variable stops a command that needs the server, not --help or --version.
        var environmentError: CommandLineUsageError?
        do {
            try result.apply(environment: environment)
        } catch {
            environmentError = error
        }
        var positional: [String] = []
        var remaining = arguments[...]
        var optionsEnded = false
        // With --help, an option's mistakes do not matter: the help is printed.
        let wantsHelp = arguments.prefix { $0 != "--" }.contains { $0 == "--help" || $0 == "-h" }
        while let argument = remaining.popFirst() {
            if optionsEnded || !isOption(argument) {
                positional.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument == "--version" {
                result.command = .version
                return result
            } else if argument == "--help" || argument == "-h" {
                continue
            } else {
                do {
                    try result.apply(option: argument, remaining: &remaining)
                } catch {
                    if !wantsHelp { throw error }
                }
            }
        }
        if wantsHelp || positional.first == "help" {
            result.command = try help(for: wantsHelp ? Array(positional.prefix(1)) : Array(positional.dropFirst()))
            return result
        }
        if let environmentError { throw environmentError }
        result.command = try command(from: positional, valueIsString: result.valueIsString, input: input)
        try result.applyCommandOptions()
        return result
    }

    /// `help`, `help COMMAND`, `COMMAND --help`: the usage, or the command's own.
    private static func help(for operands: [String]) throws(CommandLineUsageError) -> CommandLineCommand {
        guard let name = operands.first else { return .help }
        guard operands.count == 1 else {
            throw CommandLineUsageError("help takes at most one COMMAND, got \(operands.count) arguments")
        }
        guard CommandLineHelp.usage(of: name) != nil else {
            throw CommandLineUsageError("no help for '\(name)': there is no such command")
        }
        return .commandHelp(name)
    }

    /// The server from `OBSERVATORY_SERVERS` (a list), else `OBSERVATORY_HOST`, and
    /// `OBSERVATORY_PORT`; a bad value is an error naming its variable.
    private mutating func apply(environment: [String: String]) throws(CommandLineUsageError) {
        if let text = environment["OBSERVATORY_PORT"] {
            port = try Self.port(text, source: "OBSERVATORY_PORT")
        }
        for name in ["OBSERVATORY_HOST", "OBSERVATORY_SERVERS"] {
            guard let text = environment[name] else { continue }
            if name == "OBSERVATORY_HOST", text.contains(",") {
                throw CommandLineUsageError(
                    "OBSERVATORY_HOST is '\(text)', a list: it names one server (the daemon's address); "
                        + "put a list of servers in OBSERVATORY_SERVERS")
            }
            host = try Self.hosts(text, source: name)
        }
    }

    private static func port(_ text: String, source: String) throws(CommandLineUsageError) -> Int {
        guard let number = Int(text), (1...65535).contains(number) else {
            throw CommandLineUsageError("\(source) must be a number from 1 to 65535, not '\(text)'")
        }
        return number
    }

    /// Checks a host list, each `host` or `host:port`.
    private static func hosts(_ text: String, source: String) throws(CommandLineUsageError) -> String {
        guard !text.isEmpty else { throw CommandLineUsageError("\(source) must not be empty") }
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            do throws(Endpoint.ParseError) {
                _ = try Endpoint(parsing: String(item))
            } catch {
                throw CommandLineUsageError("\(source): \(error)")
            }
        }
        return text
    }

    /// Folds `--ephemeral`, `--ttl`, `--from` and `--slow` into the command they belong to.
    private mutating func applyCommandOptions() throws(CommandLineUsageError) {
        if valueIsString {
            guard case .set = command else { throw CommandLineUsageError("--string only goes with set") }
        }
        if sessionBound {
            guard case .set(let key, let value, _, let ttl) = command else {
                throw CommandLineUsageError("--ephemeral only goes with set")
            }
            command = .set(key: key, value: value, sessionBound: true, ttl: ttl)
        }
        if let ttl {
            guard case .set(let key, let value, let sessionBound, _) = command else {
                throw CommandLineUsageError("--ttl only goes with set")
            }
            command = .set(key: key, value: value, sessionBound: sessionBound, ttl: ttl)
        }
        if let fromRevision {
            guard case .watch(let target, _, let slow) = command else {
                throw CommandLineUsageError("--from only goes with watch")
            }
            command = .watch(target, fromRevision: fromRevision, slow: slow)
        }
        if historyAuthor != nil || historyLimit != nil || newestFirst {
            guard case .history(let target, _, _, _) = command else {
                throw CommandLineUsageError("--author, --limit and --newest-first only go with history")
            }
            command = .history(target, author: historyAuthor, limit: historyLimit, newestFirst: newestFirst)
        }
        if let slowPolicy {
            guard case .watch(let target, let fromRevision, _) = command else {
                throw CommandLineUsageError("--slow only goes with watch")
            }
            command = .watch(target, fromRevision: fromRevision, slow: slowPolicy)
        }
    }

    private static func isOption(_ argument: String) -> Bool {
        argument.hasPrefix("--") || argument == "-h"
    }

    /// Applies one option, taking its value from `=value` or the next argument.
    private mutating func apply(option argument: String, remaining: inout ArraySlice<String>)
        throws(CommandLineUsageError)
    {
        let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let option = String(parts[0])
        let inlineValue = parts.count == 2 ? String(parts[1]) : nil
        func value() throws(CommandLineUsageError) -> String {
            if let inlineValue { return inlineValue }
            guard let next = remaining.popFirst() else {
                throw CommandLineUsageError("missing value for \(option)")
            }
            return next
        }
        switch option {
        case "--host":
            host = try Self.hosts(try value(), source: "--host")
        case "--port":
            port = try Self.port(try value(), source: "--port")
        case "--token":
            token = try value()
        case "--name":
            self.name = try value()
            guard !self.name.isEmpty else { throw CommandLineUsageError("--name must not be empty") }
        case "--json":
            guard inlineValue == nil else { throw CommandLineUsageError("--json takes no value") }
            printsFrames = true
        case "--ephemeral":
            guard inlineValue == nil else { throw CommandLineUsageError("--ephemeral takes no value") }
            sessionBound = true
        case "--ttl":
            let text = try value()
            guard let seconds = Int64(text), (1...RequestLimits.maxTTLSeconds).contains(seconds) else {
                throw CommandLineUsageError(
                    "--ttl must be a whole number of seconds from 1 to \(RequestLimits.maxTTLSeconds), not '\(text)'")
            }
            ttl = seconds
        case "--string":
            guard inlineValue == nil else { throw CommandLineUsageError("--string takes no value") }
            valueIsString = true
        case "--from":
            let text = try value()
            guard let revision = Int64(text), revision >= 0 else {
                throw CommandLineUsageError("--from must be a revision (a number ≥ 0), not '\(text)'")
            }
            fromRevision = revision
        case "--slow":
            let text = try value()
            guard let policy = SlowPolicy(rawValue: text) else {
                throw CommandLineUsageError("--slow must be close or coalesce, not '\(text)'")
            }
            slowPolicy = policy
        case "--author":
            historyAuthor = try value()
        case "--limit":
            let text = try value()
            guard let limit = Int(text), (1...HistoryQuery.maxLimit).contains(limit) else {
                throw CommandLineUsageError(
                    "--limit must be a number from 1 to \(HistoryQuery.maxLimit), not '\(text)'")
            }
            historyLimit = limit
        case "--newest-first":
            guard inlineValue == nil else { throw CommandLineUsageError("--newest-first takes no value") }
            newestFirst = true
        default:
            throw CommandLineUsageError("unknown option \(option)")
        }
    }

    /// Turns the positional arguments into a command.
    private static func command(from positional: [String], valueIsString: Bool, input: CommandLineInput)
        throws(CommandLineUsageError) -> CommandLineCommand
    {
        guard let name = positional.first else {
            throw CommandLineUsageError("missing command")
        }
        let operands = Array(positional.dropFirst())
        switch name {
        case "get":
            return .get(key: try single("KEY", of: operands, for: name))
        case "delete":
            return .delete(key: try single("KEY", of: operands, for: name))
        case "set":
            guard operands.count == 2 else {
                throw CommandLineUsageError(
                    "set takes KEY and VALUE (quote a VALUE with spaces), got \(operands.count) arguments")
            }
            let value = CommandLineValue(argument: operands[1])
            return .set(key: operands[0], value: try value.resolve(asString: valueIsString, input: input))
        case "list":
            guard operands.count <= 1 else {
                throw CommandLineUsageError("list takes at most one PATTERN, got \(operands.count) arguments")
            }
            return .list(prefix: try CommandLinePattern.prefix(from: operands.first ?? ""))
        case "batch":
            return .batch(operations: try CommandLineBatch.operations(from: operands, input: input))
        case "ping":
            guard operands.isEmpty else {
                throw CommandLineUsageError("ping takes no arguments, got \(operands.count)")
            }
            return .ping
        case "watch":
            return .watch(
                try CommandLinePattern.target(from: try single("KEY or PREFIX*", of: operands, for: name), for: name))
        case "history":
            return .history(
                try CommandLinePattern.historyTarget(from: try single("KEY or PREFIX", of: operands, for: name)))
        default:
            throw CommandLineUsageError("unknown command '\(name)'")
        }
    }

    private static func single(_ what: String, of operands: [String], for command: String) throws(CommandLineUsageError)
        -> String
    {
        guard operands.count == 1 else {
            let problem = operands.isEmpty ? "missing \(what)" : "too many arguments (\(operands.count))"
            throw CommandLineUsageError("\(command): \(problem); usage: observatory \(command) \(what)")
        }
        return operands[0]
    }
}
