/// The exit status of the `observatory` command-line tool.
public enum CommandLineExitCode: Int32, Sendable, Equatable {
    /// The command succeeded (also after `watch` was interrupted).
    case success = 0
    /// The server refused the request: the key was not found, a version
    /// conflict, or another error reply (forbidden, invalid key, ...).
    case refused = 1
    /// The command line was wrong; the message says how.
    case usage = 2
    /// The server could not be reached, or the connection failed.
    case connection = 3
}
