/// Where the command-line tool writes: one line at a time to standard output
/// (results) and standard error (errors and notices).
///
/// The executable passes the real streams; tests pass closures that collect.
public struct CommandLineOutput: Sendable {
    /// Writes one line of results.
    public let standardOutput: @Sendable (String) -> Void
    /// Writes one line of errors or notices.
    public let standardError: @Sendable (String) -> Void

    /// Creates an output from two line writers.
    public init(
        standardOutput: @escaping @Sendable (String) -> Void, standardError: @escaping @Sendable (String) -> Void
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
    }
}
