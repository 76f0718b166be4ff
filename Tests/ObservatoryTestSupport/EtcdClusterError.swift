/// The test cluster could not be started.
public struct EtcdClusterError: Error, CustomStringConvertible {
    /// What went wrong, with the end of the member's log when there is one.
    public let message: String

    /// Creates the error with `message`.
    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}
