/// How a message's body is delimited, from its headers (RFC 9112 §6.3): the rules
/// the request and response decoders share.
enum MessageFraming {
    /// The value of `Content-Length`, or `nil` without one.
    ///
    /// Repeated fields (or a list such as `5, 5`) are accepted only when every value
    /// is the same number: two different lengths are a smuggling attempt or a broken
    /// proxy, and either way the body's end is unknown.
    static func contentLength(_ headers: HTTPHeaders) throws(HTTPError) -> Int? {
        var length: Int?
        for element in headers.listElements(for: "Content-Length") {
            guard let value = parseDecimal(element) else {
                throw .invalidContentLength("\"\(element)\" is not a decimal number of bytes")
            }
            if let length, length != value {
                throw .invalidContentLength("two different lengths, \(length) and \(value)")
            }
            length = value
        }
        if length == nil && headers.contains(name: "Content-Length") {
            throw .invalidContentLength("the field is empty")
        }
        return length
    }

    /// Whether the last transfer coding is `chunked`, or `nil` without `Transfer-Encoding`.
    static func transferCodings(_ headers: HTTPHeaders) -> [Substring]? {
        guard headers.contains(name: "Transfer-Encoding") else { return nil }
        return headers.listElements(for: "Transfer-Encoding")
    }

    /// Digits only, at most 18 of them, so the value fits in `Int` with room to add.
    private static func parseDecimal(_ text: Substring) -> Int? {
        let digits = text.utf8
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
