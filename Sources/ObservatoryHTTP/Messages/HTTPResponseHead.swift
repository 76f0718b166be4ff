/// The status line and headers of a response, as decoded or to be encoded.
public struct HTTPResponseHead: Sendable, Hashable {
    /// The version from the status line.
    public var version: HTTPVersion
    /// The status code and reason phrase.
    public var status: HTTPStatus
    /// The header fields, in order.
    public var headers: HTTPHeaders

    /// Creates a head; HTTP/1.1 unless told otherwise.
    public init(status: HTTPStatus, version: HTTPVersion = .http1Point1, headers: HTTPHeaders = HTTPHeaders()) {
        self.version = version
        self.status = status
        self.headers = headers
    }

    /// Whether the connection stays open after this response, by its version and `Connection` header.
    /// (A body delimited by the connection's close also ends it; the decoder knows that.)
    public var keepAlive: Bool {
        headers.keepAlive(for: version)
    }

    /// The head alone as bytes, its empty line included, with no `Content-Length`
    /// added: the start of a streamed body, framed by the caller's
    /// `Transfer-Encoding: chunked` or by closing the connection.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + headers.count * 32)
        appendStatusLineAndHeaders(to: &bytes)
        HeadWriter.appendLineEnd(to: &bytes)
        return bytes
    }

    /// Appends the status line and the headers, without the empty line that ends the head.
    func appendStatusLineAndHeaders(to bytes: inout [UInt8]) {
        HeadWriter.appendLiteral(version.description, to: &bytes)
        bytes.append(ASCII.space)
        // Three digits whatever the caller set, so the line always parses.
        HeadWriter.appendLiteral(String(min(999, max(100, status.code))), to: &bytes)
        bytes.append(ASCII.space)
        HeadWriter.appendSafely(status.reasonPhrase, to: &bytes)
        HeadWriter.appendLineEnd(to: &bytes)
        HeadWriter.appendHeaders(headers, to: &bytes)
    }

    /// `HTTP/1.1 100 Continue` and its empty line: the interim answer to a request that
    /// expects it (``HTTPRequestHead/expectsContinue``).
    public static let continueBytes: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
}
