/// An HTTP/1.x protocol version, as written in a request or status line.
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The digit before the dot.
    public var major: Int
    /// The digit after the dot.
    public var minor: Int

    /// Creates a version from its digits.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0: connections close after each exchange unless `Connection: keep-alive`.
    public static let http1Point0 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1: connections stay open unless `Connection: close`.
    public static let http1Point1 = HTTPVersion(major: 1, minor: 1)

    /// `HTTP/1.1`.
    public var description: String {
        "HTTP/\(major).\(minor)"
    }
}
