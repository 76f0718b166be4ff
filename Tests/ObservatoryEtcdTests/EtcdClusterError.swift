/// The test cluster could not be started.
struct EtcdClusterError: Error, CustomStringConvertible {
    /// What went wrong, with the end of the member's log when there is one.
    let message: String

    var description: String { message }
}
