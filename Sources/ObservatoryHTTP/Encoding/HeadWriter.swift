/// Writes the parts of a message head into a byte array.
///
/// Names and values come from callers, and a CR or LF in them would end the line
/// and let a value inject headers or a whole message. They are written with every
/// control byte (other than tab) replaced by a space, so the head keeps its framing
/// whatever the caller passed.
enum HeadWriter {
    /// Appends `text` with controls replaced by spaces.
    @inline(__always)
    static func appendSafely(_ text: some StringProtocol, to bytes: inout [UInt8]) {
        for byte in text.utf8 {
            bytes.append(ASCII.isFieldValueCharacter(byte) ? byte : ASCII.space)
        }
    }

    /// Appends `text` as it is, for parts this module controls (numbers, fixed words).
    @inline(__always)
    static func appendLiteral(_ text: some StringProtocol, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends CR LF.
    @inline(__always)
    static func appendLineEnd(to bytes: inout [UInt8]) {
        bytes.append(ASCII.carriageReturn)
        bytes.append(ASCII.lineFeed)
    }

    /// Appends `Name: value` CR LF for each header.
    static func appendHeaders(_ headers: HTTPHeaders, to bytes: inout [UInt8]) {
        for field in headers {
            appendSafely(field.name, to: &bytes)
            bytes.append(ASCII.colon)
            bytes.append(ASCII.space)
            appendSafely(field.value, to: &bytes)
            appendLineEnd(to: &bytes)
        }
    }

    /// Whether the caller already framed the body (so no `Content-Length` is added).
    static func declaresBodyFraming(_ headers: HTTPHeaders) -> Bool {
        headers.contains(name: "Content-Length") || headers.contains(name: "Transfer-Encoding")
    }
}
