/// A command line that `observatory` cannot run, with a message saying what to fix.
///
/// The tool prints the message and the usage text to stderr and exits with
/// ``CommandLineExitCode/usage``.
public struct CommandLineUsageError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, such as `missing KEY for get`.
    public let message: String

    /// Creates a usage error with a message a user can act on.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
