import ObservatoryWire

/// One thing the `observatory` command-line tool can do.
public enum CommandLineCommand: Sendable, Equatable {
    /// Print the value of a key.
    case get(key: String)
    /// Set a key to a value (given as JSON, as a plain word taken as a string, or read
    /// from standard input or a file: see ``CommandLineValue``).
    /// With `sessionBound`, the key is bound to the command's session: the command
    /// keeps running, and the server deletes the key when it ends. With `ttl`,
    /// the key expires that many seconds after the write.
    case set(key: String, value: JSONValue, sessionBound: Bool = false, ttl: Int64? = nil)
    /// Delete a key.
    case delete(key: String)
    /// List the keys that start with a prefix ("" for all of them); `list` reads
    /// its pattern as `CommandLinePattern` says.
    case list(prefix: String)
    /// Print every change of one key, or of every key under a prefix, until
    /// interrupted; with `fromRevision`, first the changes after that revision.
    /// `slow` is what the server does when the command falls behind: merge
    /// pending changes of a key (`coalesce`), or close the connection (`close`),
    /// after which the command resumes by itself and misses no change.
    case watch(Target, fromRevision: Int64? = nil, slow: SlowPolicy = .coalesce)
    /// Print the held changes of a key or of the keys under a prefix, one a line
    /// with its author and local time: at most `limit` (the server's default when
    /// nil), only those under an `author` name when given, oldest first unless `newestFirst`.
    case history(Target, author: String? = nil, limit: Int? = nil, newestFirst: Bool = false)
    /// Apply several operations all or nothing, at one revision (read as JSON:
    /// see `CommandLineBatch`), and print the revision and one line per operation.
    case batch(operations: [BatchOperation<JSONValue>])
    /// Print the server's name, its last revision and its epoch: a health check
    /// (exit 0, or 3 when the server cannot be reached).
    case ping
    /// Print the usage text.
    case help
    /// Print one command's usage (`help set`, `set --help`).
    case commandHelp(String)
    /// Print the version.
    case version
}
