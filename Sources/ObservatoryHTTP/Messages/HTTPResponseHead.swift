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
}
