/// A line longer than a `LineSplitter` accepts: the stream has lost its framing.
public struct LineTooLongError: Error, Sendable, Equatable {
    /// The longest line the splitter accepted, in bytes, without CR and LF.
    public let limit: Int

    /// Creates the error of a splitter whose limit is `limit` bytes.
    public init(limit: Int) {
        self.limit = limit
    }
}
