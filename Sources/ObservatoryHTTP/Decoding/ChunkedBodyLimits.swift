/// The bounds on a chunked body, so that a peer cannot make a decoder hold or
/// count without end.
public struct ChunkedBodyLimits: Sendable, Hashable {
    /// The default bound on a chunk size line, extensions included: 4 KiB, far
    /// above the 16 hexadecimal digits a size needs.
    public static let defaultMaxSizeLineBytes = 4096
    /// The default bound on the trailer section: 16 KiB, as for a head.
    public static let defaultMaxTrailerBytes = 16 << 10

    /// The longest chunk size line, CR LF included.
    public var maxSizeLineBytes: Int
    /// The most bytes of trailer fields, the final CR LF included.
    public var maxTrailerBytes: Int
    /// The most body bytes over all chunks, or `nil` for no bound (an endless stream).
    /// ``HTTPResponseDecoder`` applies it to bodies of any framing.
    public var maxBodyBytes: Int?

    /// Creates limits; the defaults bound the lines but not the body.
    public init(
        maxSizeLineBytes: Int = defaultMaxSizeLineBytes, maxTrailerBytes: Int = defaultMaxTrailerBytes,
        maxBodyBytes: Int? = nil
    ) {
        self.maxSizeLineBytes = maxSizeLineBytes
        self.maxTrailerBytes = maxTrailerBytes
        self.maxBodyBytes = maxBodyBytes
    }
}
