/// Errors of the test helpers.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
}
