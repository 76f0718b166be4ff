/// Errors of the test helpers.
public struct TestFailure: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// A failure described by `description`.
    public init(description: String) {
        self.description = description
    }
}
