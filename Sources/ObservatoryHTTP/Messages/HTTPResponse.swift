/// A response to send with its whole body: status, headers, body.
///
/// ```swift
/// var response = HTTPResponse(status: .ok, body: Array("ok".utf8))
/// response.headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
/// send(response.encoded())
/// ```
///
/// For a body sent as it is produced (Server-Sent Events), encode only a
/// ``HTTPResponseHead`` with ``HTTPResponseHead/encoded()`` and send the body with
/// ``ChunkedBodyEncoder`` or, after `Connection: close`, as raw bytes.
public struct HTTPResponse: Sendable, Hashable {
    /// The status line's version, status and headers.
    public var head: HTTPResponseHead
    /// The body; empty for none.
    public var body: [UInt8]

    /// Creates a response; HTTP/1.1 unless told otherwise.
    public init(status: HTTPStatus, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        head = HTTPResponseHead(status: status, headers: headers)
        self.body = body
    }

    /// The status to send.
    public var status: HTTPStatus {
        get { head.status }
        set { head.status = newValue }
    }

    /// The header fields, in the order they are sent.
    public var headers: HTTPHeaders {
        get { head.headers }
        set { head.headers = newValue }
    }

    /// The response as bytes to send: status line, headers, `Content-Length` (unless
    /// the status forbids a body or the headers frame it already), an empty line, the body.
    ///
    /// A status that forbids a body (1xx, 204, 304) is sent without one, whatever ``body`` holds.
    public func encoded() -> [UInt8] {
        encoded(sendingBody: true)
    }

    /// The response as a `HEAD` request gets it (RFC 9110 §9.3.2): the status line and
    /// headers of ``encoded()``, `Content-Length` included, so that the client learns
    /// what a `GET` would send, and no body.
    public func encodedForHeadRequest() -> [UInt8] {
        encoded(sendingBody: false)
    }

    private func encoded(sendingBody: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        let hasBody = !head.status.forbidsBody
        bytes.reserveCapacity(128 + head.headers.count * 32 + (hasBody && sendingBody ? body.count : 0))
        head.appendStatusLineAndHeaders(to: &bytes)
        if hasBody && !HeadWriter.declaresBodyFraming(head.headers) {
            HeadWriter.appendLiteral("Content-Length: \(body.count)", to: &bytes)
            HeadWriter.appendLineEnd(to: &bytes)
        }
        HeadWriter.appendLineEnd(to: &bytes)
        if hasBody && sendingBody { bytes.append(contentsOf: body) }
        return bytes
    }
}
