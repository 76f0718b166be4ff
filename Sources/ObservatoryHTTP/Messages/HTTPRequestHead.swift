/// The request line and headers of a decoded request.
public struct HTTPRequestHead: Sendable, Hashable {
    /// The method, a token such as `GET`; case-sensitive, as HTTP defines it.
    public var method: String
    /// The request target as sent, still percent-encoded; ``HTTPTarget`` splits and decodes it.
    public var target: String
    /// HTTP/1.0 or HTTP/1.1.
    public var version: HTTPVersion
    /// The header fields, in order.
    public var headers: HTTPHeaders

    /// Creates a head from its parts.
    public init(
        method: String, target: String, version: HTTPVersion = .http1Point1, headers: HTTPHeaders = HTTPHeaders()
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }

    /// Whether the client wants the connection kept open after the response: HTTP/1.1
    /// unless `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`.
    public var keepAlive: Bool {
        headers.keepAlive(for: version)
    }

    /// Whether the client sent `Expect: 100-continue` and waits (curl: one second) for
    /// an interim `100 Continue` before sending the body. A server that will read the
    /// body answers with ``HTTPResponseHead/continueBytes`` first; one that refuses the
    /// request answers with its final status at once.
    public var expectsContinue: Bool {
        version == .http1Point1 && headers.listContains("100-continue", for: "Expect")
    }
}
