import ObservatoryWire

/// One thing the `observatory` command-line tool can do.
public enum CommandLineCommand: Sendable, Equatable {
    /// Print the value of a key.
    case get(key: String)
    /// Set a key to a value (given as JSON, or as a bare word taken as a string).
    /// With `ephemeral`, the key is bound to the command's session: the command
    /// keeps running, and the server deletes the key when it ends.
    case set(key: String, value: JSONValue, ephemeral: Bool = false)
    /// Delete a key.
    case delete(key: String)
    /// List the keys that start with a prefix ("" for all of them).
    case list(prefix: String)
    /// Print every change of one key, or of every key under a prefix, until
    /// interrupted; with `fromRevision`, first the changes after that revision.
    /// `slow` is what the server does when the command falls behind: merge
    /// pending changes of a key (`coalesce`), or close the connection (`close`),
    /// after which the command resumes by itself and misses no change.
    case watch(Target, fromRevision: Int64? = nil, slow: SlowPolicy = .coalesce)
    /// Print the server's name, its last revision and its epoch: a health check
    /// (exit 0, or 3 when the server cannot be reached).
    case ping
    /// Print the usage text.
    case help
}
