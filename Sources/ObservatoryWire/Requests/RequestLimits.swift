/// The limits a receiver applies while decoding requests.
///
/// The server builds one from its configuration; the defaults are those of docs/protocol.md.
public struct RequestLimits: Sendable, Hashable {
    /// The default ``maxValueBytes``: 512 KiB.
    public static let defaultMaxValueBytes = 512 * 1024

    /// The largest encoded (compact JSON) size of a `set` value; larger is `value_too_large`.
    public var maxValueBytes: Int
    /// How deep arrays and objects may nest in a frame; deeper is `bad_frame`.
    public var maxDepth: Int

    /// Limits with the given values, or the protocol's defaults.
    public init(maxValueBytes: Int = defaultMaxValueBytes, maxDepth: Int = JSONValue.defaultMaxDepth) {
        self.maxValueBytes = maxValueBytes
        self.maxDepth = maxDepth
    }

    /// The longest `ttl` of a `set` or a batch's set: 365 days, in seconds.
    public static let maxTTLSeconds: Int64 = 31_536_000

    /// The longest author name a `hello` may give, in UTF-8 bytes.
    public static let maxNameBytes = 128

    /// The longest `requestId`, in UTF-8 bytes.
    public static let maxRequestIdBytes = 128

    /// The defaults of docs/protocol.md.
    public static let `default` = RequestLimits()
}
