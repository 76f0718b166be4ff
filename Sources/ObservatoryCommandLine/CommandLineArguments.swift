import ObservatoryClient
import ObservatoryWire

/// A parsed `observatory` command line: the connection options and the command.
///
/// `parse(_:)` is pure, so every rule of the command line is unit tested
/// without a server:
///
///     let arguments = try CommandLineArguments.parse(["set", "sky.color", "red", "--port", "7071"])
///     // arguments.command == .set(key: "sky.color", valueText: "red"), arguments.port == 7071
public struct CommandLineArguments: Sendable, Equatable {
    /// The server's host name or address (`--host`, default 127.0.0.1), or
    /// several servers separated by commas, each `host` or `host:port`.
    public var host: String = "127.0.0.1"
    /// The server's TCP port (`--port`, default 7070), for hosts without a port of their own.
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
    private var ephemeral = false
    /// `watch --from REV`: resume after this revision.
    private var fromRevision: Int64?
    /// `watch --slow close|coalesce`: what the server does when the command falls behind.
    private var slowPolicy: SlowPolicy?
    /// What to do.
    public var command: CommandLineCommand = .help

    /// Creates arguments with the defaults and the `help` command.
    public init() {}

    /// The usage text that `--help` prints.
    public static let usage = """
        usage: observatory [options] COMMAND

        commands:
          get KEY             print the value of KEY as JSON
          set KEY VALUE       set KEY to VALUE (JSON; a bare word is a string)
                              --ephemeral: keep KEY only while the command runs
          delete KEY          delete KEY
          list [PREFIX]       list the keys that start with PREFIX, with their versions
          watch KEY|PREFIX*   print every change of KEY, or of every key under PREFIX,
                              as `key old → new by author (vN)`, until interrupted
                              --from REV: first the changes after revision REV
                              --slow close: never skip a change; if the command falls
                              behind, the server closes and watch resumes by itself
                              (default --slow coalesce: skip to the latest value)
          ping                print the server, its last revision and its epoch (a health check)

        options:
          --host HOST         server host (default 127.0.0.1); several as a:7070,b:7070
                              are tried in turn
          --port PORT         server port (default 7070)
          --token TOKEN       authentication token
          --name NAME         author name for changes (default observatory-cli)
          --json              print the server's frames as JSON
          --help, -h          print this text

        exit codes: 0 ok, 1 not found, conflict or refused, 2 usage, 3 connection
        """

    /// Parses the arguments after the program name.
    ///
    /// Options may appear anywhere; `--name value` and `--name=value` both
    /// work. An argument that starts with a single dash (`-5`) is a value, so
    /// negative numbers need no quoting; `--` ends the options.
    /// - Throws: ``CommandLineUsageError`` with a message saying what to fix.
    public static func parse(_ arguments: [String]) throws(CommandLineUsageError) -> CommandLineArguments {
        var result = CommandLineArguments()
        var positional: [String] = []
        var remaining = arguments[...]
        var optionsEnded = false
        while let argument = remaining.popFirst() {
            if optionsEnded || !isOption(argument) {
                positional.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument == "--help" || argument == "-h" {
                result.command = .help
                return result
            } else {
                try result.apply(option: argument, remaining: &remaining)
            }
        }
        result.command = try command(from: positional)
        try result.applyCommandOptions()
        return result
    }

    /// Folds `--ephemeral`, `--from` and `--slow` into the command they belong to.
    private mutating func applyCommandOptions() throws(CommandLineUsageError) {
        if ephemeral {
            guard case .set(let key, let value, _) = command else {
                throw CommandLineUsageError("--ephemeral only goes with set")
            }
            command = .set(key: key, value: value, ephemeral: true)
        }
        if let fromRevision {
            guard case .watch(let target, _, let slow) = command else {
                throw CommandLineUsageError("--from only goes with watch")
            }
            command = .watch(target, fromRevision: fromRevision, slow: slow)
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
            host = try value()
            guard !host.isEmpty else { throw CommandLineUsageError("--host must not be empty") }
            for item in host.split(separator: ",", omittingEmptySubsequences: false) {
                do throws(Endpoint.ParseError) {
                    _ = try Endpoint(parsing: String(item))
                } catch {
                    throw CommandLineUsageError("--host: \(error)")
                }
            }
        case "--port":
            let text = try value()
            guard let number = Int(text), (1...65535).contains(number) else {
                throw CommandLineUsageError("--port must be a number from 1 to 65535, not '\(text)'")
            }
            port = number
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
            ephemeral = true
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
        default:
            throw CommandLineUsageError("unknown option \(option)")
        }
    }

    /// Turns the positional arguments into a command.
    private static func command(from positional: [String]) throws(CommandLineUsageError) -> CommandLineCommand {
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
            return .set(key: operands[0], value: try value(from: operands[1]))
        case "list":
            guard operands.count <= 1 else {
                throw CommandLineUsageError("list takes at most one PREFIX, got \(operands.count) arguments")
            }
            return .list(prefix: operands.first ?? "")
        case "ping":
            guard operands.isEmpty else {
                throw CommandLineUsageError("ping takes no arguments, got \(operands.count)")
            }
            return .ping
        case "watch":
            let pattern = try single("KEY or PREFIX*", of: operands, for: name)
            guard pattern.hasSuffix("*") else { return .watch(.key(pattern)) }
            return .watch(.prefix(String(pattern.dropLast())))
        default:
            throw CommandLineUsageError("unknown command '\(name)'")
        }
    }

    /// JSON when the text is JSON; a bare word (or any text that does not
    /// start like JSON) is a string, so `set greeting hello` needs no quotes.
    static func value(from text: String) throws(CommandLineUsageError) -> JSONValue {
        do {
            return try JSONValue.parse(text)
        } catch {
            let trimmed = text.drop { $0 == " " }
            guard let first = trimmed.first, "{[\"".contains(first) else { return .string(text) }
            throw CommandLineUsageError(
                "VALUE is not valid JSON (\(error)); quote a string that starts with \(first) as JSON")
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
