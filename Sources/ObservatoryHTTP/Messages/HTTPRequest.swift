/// A request to send: method, target, headers and a body held whole.
///
/// ```swift
/// var request = HTTPRequest(method: "POST", target: "/v3/kv/range", body: Array(json.utf8))
/// request.headers.add(name: "Host", value: "127.0.0.1:2379")
/// request.headers.add(name: "Content-Type", value: "application/json")
/// socket.send(request.encoded())
/// ```
///
/// `Host` is the caller's to add (HTTP/1.1 servers may reject a request without it);
/// `Content-Length` is added by ``encoded()`` unless the headers already frame the body.
public struct HTTPRequest: Sendable, Hashable {
    /// The method, such as `GET` or `POST`; a token, usually upper case.
    public var method: String
    /// The request target: an origin-form path with an optional query, such as `/v3/watch`.
    public var target: String
    /// The version written in the request line.
    public var version: HTTPVersion
    /// The header fields, in the order they are sent.
    public var headers: HTTPHeaders
    /// The body; empty for none.
    public var body: [UInt8]

    /// Creates a request; HTTP/1.1 unless told otherwise.
    public init(
        method: String, target: String, version: HTTPVersion = .http1Point1, headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = []
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// The request as bytes to send: request line, headers, a `Content-Length` when
    /// there is a body (or the method usually carries one) and the headers do not
    /// frame it already, an empty line, the body.
    ///
    /// Control bytes in the method, names or values are written as spaces, and spaces,
    /// controls and non-ASCII bytes in the target are percent-encoded, so a value taken
    /// from outside cannot end the head early.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + target.utf8.count + headers.count * 32 + body.count)
        HeadWriter.appendSafely(method, to: &bytes)
        bytes.append(ASCII.space)
        for byte in target.utf8 {
            if ASCII.isVisible(byte) {
                bytes.append(byte)
            } else {
                // A space would split the request line, a control could end it, and
                // bytes above 127 are not allowed in a target: percent-encode them all.
                let hexDigits: StaticString = "0123456789ABCDEF"
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits.utf8Start[Int(byte >> 4)])
                bytes.append(hexDigits.utf8Start[Int(byte & 0x0F)])
            }
        }
        bytes.append(ASCII.space)
        HeadWriter.appendLiteral(version.description, to: &bytes)
        HeadWriter.appendLineEnd(to: &bytes)
        HeadWriter.appendHeaders(headers, to: &bytes)
        if !HeadWriter.declaresBodyFraming(headers) && (!body.isEmpty || Self.usuallyHasBody(method)) {
            HeadWriter.appendLiteral("Content-Length: \(body.count)", to: &bytes)
            HeadWriter.appendLineEnd(to: &bytes)
        }
        HeadWriter.appendLineEnd(to: &bytes)
        bytes.append(contentsOf: body)
        return bytes
    }

    /// Methods whose requests carry a body, so an empty one is sent as `Content-Length: 0`
    /// (some servers answer 411 Length Required otherwise).
    private static func usuallyHasBody(_ method: String) -> Bool {
        method == "POST" || method == "PUT" || method == "PATCH"
    }
}
