/// A failure of the server benchmark, with a message for the person running it:
/// a server that did not start, a connection that broke, a bad option.
struct BenchError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
