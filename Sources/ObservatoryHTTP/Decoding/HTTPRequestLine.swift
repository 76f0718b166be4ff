/// Tells an HTTP connection from a line-protocol one by its first line, as
/// docs/protocol.md's "HTTP on the same port" defines it.
///
/// The first line is HTTP when it is `METHOD SP TARGET SP HTTP/1.1` (or `HTTP/1.0`),
/// the method in upper-case letters and the target without spaces; anything else is
/// the line protocol, so `hello world` and JSON lines stay line protocol.
///
/// ```swift
/// switch HTTPRequestLine.classify(firstBytes) {
/// case .http: serveHTTP()
/// case .lineProtocol: serveLines()
/// case .needMoreBytes: waitForMoreBytes()
/// }
/// ```
///
/// The decision comes as early as the bytes allow: `{` or a lower-case letter as the
/// first byte is the line protocol at once. It never needs more than
/// ``maxLineBytes``: a first line that still looks like a request line at that length
/// is HTTP (so the HTTP side answers 431), otherwise it is the line protocol.
public enum HTTPRequestLine {
    /// What the bytes received so far make of a connection.
    public enum Classification: Sendable, Hashable {
        /// The first line is an HTTP/1.x request line.
        case http
        /// The first line is not an HTTP request line: a line-protocol connection.
        case lineProtocol
        /// The bytes so far could still be either.
        case needMoreBytes
    }

    /// The bound on the first line: 16 KiB, the HTTP head limit.
    public static let maxLineBytes = 16 << 10

    private enum Phase {
        case method
        case target
        case version(matched: Int)
        case carriageReturn
        case lineFeed
    }

    /// Classifies a connection by the first bytes it sent (a prefix of its stream).
    public static func classify(_ prefix: some Sequence<UInt8>) -> Classification {
        var phase = Phase.method
        var count = 0
        var partLength = 0
        let version: StaticString = "HTTP/1."
        for byte in prefix {
            if count == maxLineBytes {
                if case .method = phase { return .lineProtocol }
                return .http
            }
            count += 1
            switch phase {
            case .method:
                if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
                    partLength += 1
                } else if byte == ASCII.space && partLength > 0 {
                    phase = .target
                    partLength = 0
                } else {
                    return .lineProtocol
                }
            case .target:
                if byte == ASCII.space && partLength > 0 {
                    phase = .version(matched: 0)
                } else if byte > ASCII.space && byte != 0x7F {
                    partLength += 1
                } else {
                    return .lineProtocol
                }
            case .version(let matched):
                if matched < 7 {
                    guard byte == version.utf8Start[matched] else { return .lineProtocol }
                    phase = .version(matched: matched + 1)
                } else {
                    guard byte == UInt8(ascii: "0") || byte == UInt8(ascii: "1") else { return .lineProtocol }
                    phase = .carriageReturn
                }
            case .carriageReturn:
                // A bare LF is still an HTTP request line; the decoder answers it with 400.
                if byte == ASCII.lineFeed { return .http }
                guard byte == ASCII.carriageReturn else { return .lineProtocol }
                phase = .lineFeed
            case .lineFeed:
                return byte == ASCII.lineFeed ? .http : .lineProtocol
            }
        }
        return .needMoreBytes
    }
}
