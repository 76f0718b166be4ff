import Observatory
import ObservatoryClient
import ObservatoryWire

/// The `observatory` command-line tool as a function call, so that every
/// command and exit code is tested without spawning a process.
///
/// `main.swift` only wires the real output streams and SIGINT to ``run(arguments:output:)``:
/// cancelling the task that runs it ends a `watch` cleanly, with exit code 0.
public enum CommandLineTool {
    /// Parses `arguments` (without the program name), runs the command, and
    /// returns the exit code.
    ///
    /// - Parameters:
    ///   - environment: the process environment (`OBSERVATORY_HOST`, `OBSERVATORY_PORT`,
    ///     `OBSERVATORY_SERVERS`).
    ///   - input: where `set KEY -` and `set KEY @PATH` read their value.
    public static func run(
        arguments: [String], environment: [String: String] = [:], input: CommandLineInput = .none,
        output: CommandLineOutput
    ) async -> CommandLineExitCode {
        let parsed: CommandLineArguments
        do {
            parsed = try CommandLineArguments.parse(arguments, environment: environment, input: input)
        } catch {
            output.standardError("observatory: \(error.message)")
            // The command's own usage when the line names one: it says what went wrong there.
            let named = arguments.first { $0 != "help" && CommandLineHelp.usage(of: $0) != nil }
            output.standardError(
                named.map { "Run 'observatory help \($0)' for its usage." } ?? "Run 'observatory --help' for usage.")
            return .usage
        }
        return await run(parsed, output: output)
    }

    /// Runs parsed arguments and returns the exit code.
    public static func run(_ arguments: CommandLineArguments, output: CommandLineOutput) async -> CommandLineExitCode {
        switch arguments.command {
        case .help:
            output.standardOutput(CommandLineHelp.usage)
            return .success
        case .commandHelp(let name):
            output.standardOutput(CommandLineHelp.usage(of: name) ?? CommandLineHelp.usage)
            return .success
        case .version:
            output.standardOutput(CommandLineHelp.version)
            return .success
        default:
            break
        }
        var configuration = ClientConfiguration(
            endpoints: arguments.endpoints, name: arguments.name, token: arguments.token)
        configuration.reconnects = false
        let client: ObservatoryClient
        do {
            client = try await ObservatoryClient.connect(configuration, timeout: .seconds(10))
        } catch {
            output.standardError("observatory: cannot reach \(servers(arguments.endpoints)): \(error)")
            return .connection
        }
        defer { client.close() }
        do {
            try await perform(arguments, on: client, output: output)
            return .success
        } catch {
            output.standardError("observatory: \(message(for: error, of: arguments.command))")
            return exitCode(for: error)
        }
    }

    /// The error in the words of the command that met it: a lost connection ends a
    /// `watch` or a session-bound `set`, where nothing waits for a reply.
    static func message(for error: ClientError, of command: CommandLineCommand) -> String {
        if case .batch(let operations) = command { return batchMessage(for: error, operations: operations) }
        guard error.code == .connectionLost, let reason = error.disconnectReason else { return "\(error)" }
        switch command {
        case .watch:
            return "the watch ended: \(reason). Run it again when the server is back; "
                + "add --from REV (the last vN shown) to see the changes made in between"
        case .set(let key, _, true, _):
            return "the session ended: \(reason); the server no longer keeps \(key) for this command"
        default:
            return "\(error)"
        }
    }

    /// Connection trouble is 3; every refusal by the server (not found,
    /// conflict, forbidden, invalid key, ...) and every value that does not fit is 1.
    static func exitCode(for error: ClientError) -> CommandLineExitCode {
        switch error.code {
        case .server, .undecodableValue, .unencodableValue, .notAMirror: .refused
        default: .connection
        }
    }

    private static func perform(
        _ arguments: CommandLineArguments, on client: ObservatoryClient, output: CommandLineOutput
    ) async throws(ClientError) {
        let raw = arguments.printsFrames
        switch arguments.command {
        case .help, .commandHelp, .version:
            output.standardOutput(CommandLineHelp.usage)
        case .get(let key):
            let reply = try await client.send(.get(key: key))
            output.standardOutput(raw ? frame(reply) : (reply["value"].map(ChangeFormatter.text) ?? "null"))
        case .set(let key, let value, let sessionBound, let ttl):
            let reply = try await client.send(
                .set(key: key, value: value, ifVersion: nil, sessionBound: sessionBound, ttl: ttl))
            let version = reply["version"]?.integerValue ?? 0
            let changed = reply["changed"]?.boolValue ?? true
            let summary =
                changed ? "\(key) = \(ChangeFormatter.preview(value)) (v\(version))" : "\(key) unchanged (v\(version))"
            output.standardOutput(raw ? frame(reply) : summary)
            if sessionBound { try await holdSession(for: key, on: client, output: output) }
        case .delete(let key):
            let reply = try await client.send(.delete(key: key, ifVersion: nil))
            output.standardOutput(raw ? frame(reply) : "\(key) deleted (v\(reply["version"]?.integerValue ?? 0))")
        case .list(let prefix):
            var after: String?
            repeat {
                let reply = try await client.send(.list(prefix: prefix, after: after, limit: nil))
                let entries = reply["keys"]?.arrayValue ?? []
                if raw {
                    output.standardOutput(frame(reply))
                } else {
                    for entry in entries {
                        output.standardOutput(
                            "\(entry["key"]?.stringValue ?? "?") (v\(entry["version"]?.integerValue ?? 0))")
                    }
                }
                after = reply["more"] == true ? entries.last?["key"]?.stringValue : nil
            } while after != nil
        case .batch(let operations):
            try await batch(operations, on: client, raw: raw, output: output)
        case .watch(let target, let fromRevision, let slow):
            try await watch(target, from: fromRevision, slow: slow, on: client, raw: raw, output: output)
        case .history(let target, let author, let limit, let newestFirst):
            let query = HistoryQuery(
                target, author: author, limit: limit ?? HistoryQuery.defaultLimit, newestFirst: newestFirst)
            if raw { return output.standardOutput(frame(try await client.send(.history(query)))) }
            let page = try await client.history(query, as: JSONValue.self)
            for entry in page.entries { output.standardOutput(ChangeFormatter.line(for: entry)) }
            if page.more {
                output.standardError("more changes are held than shown; raise --limit (up to \(HistoryQuery.maxLimit))")
            }
        case .ping:
            // A second hello (same name and token) learns the server's name; ping, its revision and epoch.
            let hello = try await client.send(.hello(name: arguments.name, token: arguments.token, protocolVersion: 1))
            let ping = try await client.send(.ping)
            if raw { return output.standardOutput(frame(hello) + "\n" + frame(ping)) }
            let server = hello["server"]?.stringValue ?? "?"
            let revision = ping["revision"]?.integerValue ?? 0
            output.standardOutput("\(server), revision \(revision), epoch \(ping["epoch"]?.stringValue ?? "?")")
        }
    }

    /// Prints every change until the task is cancelled (SIGINT) or the
    /// connection ends (then throws, for exit code 3). With `fromRevision`, the
    /// changes after it come first, if the server still holds them; it says
    /// whether it did.
    ///
    /// When the server closes the connection as a slow consumer (`--slow close`
    /// falls behind), it connects again and resumes after the revision the
    /// server's error names, saying so on standard error: no change is missed.
    private static func watch(
        _ target: Target, from fromRevision: Int64?, slow: SlowPolicy, on client: ObservatoryClient, raw: Bool,
        output: CommandLineOutput
    ) async throws(ClientError) {
        var client = client
        var fromRevision = fromRevision
        // The clients this opens after a slow-consumer close; `run` closes the first.
        var reconnected: ObservatoryClient?
        defer { reconnected?.close() }
        while true {
            for await change in try await changes(
                of: target, from: fromRevision, slow: slow, on: client, output: output)
            {
                output.standardOutput(
                    raw ? String(decoding: change.event.encoded(), as: UTF8.self) : ChangeFormatter.line(for: change))
            }
            if Task.isCancelled { return }
            guard case .disconnected(.slowConsumer(let revision?)) = client.currentState else {
                return try endedByInterruption(client)
            }
            // Closed again at the revision it resumed from: no progress, so no endless loop.
            if revision == fromRevision, reconnected != nil { throw .connectionLost(.slowConsumer(revision: revision)) }
            output.standardError("the server closed the connection: this watch fell behind (slow_consumer)")
            reconnected?.close()
            client = try await ObservatoryClient.connect(client.configuration, timeout: .seconds(10))
            reconnected = client
            fromRevision = revision
        }
    }

    /// Starts watching `target` (after `fromRevision`, if given) and says so on standard error.
    private static func changes(
        of target: Target, from fromRevision: Int64?, slow: SlowPolicy, on client: ObservatoryClient,
        output: CommandLineOutput
    ) async throws(ClientError) -> AsyncStream<RemoteChange> {
        let description =
            switch target {
            case .key(let key): key
            case .prefix(let prefix): prefix + "*"
            }
        guard let fromRevision else {
            let changes = try await client.changes(of: target, slow: slow)
            output.standardError(
                "watching \(description) on \(servers(client.configuration.endpoints)); Ctrl-C stops")
            return changes
        }
        let (changes, resumed) = try await client.changes(of: target, after: fromRevision, slow: slow)
        output.standardError(
            resumed
                ? "resumed \(description) after revision \(fromRevision)"
                : "cannot resume \(description) after revision \(fromRevision): the server no longer holds "
                    + "every change since; showing changes from now on")
        output.standardError(
            "watching \(description) on \(servers(client.configuration.endpoints)); Ctrl-C stops")
        return changes
    }

    /// Keeps a session-bound key's session open until the task is cancelled
    /// (SIGINT): the server deletes the key when the command ends.
    private static func holdSession(for key: String, on client: ObservatoryClient, output: CommandLineOutput)
        async throws(ClientError)
    {
        output.standardError("keeping \(key) while this runs; Ctrl-C ends the session and the server deletes it")
        let states = AsyncStream<ConnectionState> { continuation in
            let observer = FreeObserver()
            observer.observe(client.connectionState) { (update: Update<ConnectionState>) in
                if !update.new.isConnected { continuation.finish() }
            }
            continuation.onTermination = { _ in observer.stopObserving(client.connectionState) }
            // The connection may have ended before the observation began.
            if !client.currentState.isConnected { continuation.finish() }
        }
        for await _ in states {}
        try endedByInterruption(client)
    }

    /// Returns when the task was cancelled (Ctrl-C); throws `connectionLost` when the connection ended instead.
    private static func endedByInterruption(_ client: ObservatoryClient) throws(ClientError) {
        if Task.isCancelled { return }
        if case .disconnected(let reason) = client.currentState {
            throw .connectionLost(reason)
        }
    }

    /// `a:7070, b:7070`, for messages.
    private static func servers(_ endpoints: [Endpoint]) -> String {
        endpoints.map(\.description).joined(separator: ", ")
    }

    private static func frame(_ object: JSONObject) -> String {
        ChangeFormatter.text(.object(object))
    }
}
