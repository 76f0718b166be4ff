/// The rules of ``HTTPRequestDecoder``, run by its ``DecoderCore``: a request head,
/// then the body as the head frames it (strictly: a server refuses what it cannot frame).
struct HTTPRequestMachine: DecodingMachine {
    let maxHeadBytes: Int
    let maxBodyBytes: Int
    let chunkedLimits: ChunkedBodyLimits
    private var scanner = HeadScanner()
    /// The body being read, or `nil` while a head is awaited.
    private(set) var body: BodyFraming?

    init(maxHeadBytes: Int, maxBodyBytes: Int, chunkedLimits: ChunkedBodyLimits) {
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
        self.chunkedLimits = chunkedLimits
    }

    mutating func next(from buffer: inout InputBuffer, inputFinished: Bool) throws(HTTPError) -> HTTPRequestPart? {
        guard body != nil else { return try decodeHead(from: &buffer, inputFinished: inputFinished) }
        switch try body?.next(from: &buffer, inputFinished: inputFinished) {
        case .data(let bytes):
            return .body(bytes)
        case .end:
            body = nil
            return .end
        case nil:
            return nil
        }
    }

    private mutating func decodeHead(
        from buffer: inout InputBuffer, inputFinished: Bool
    ) throws(HTTPError) -> HTTPRequestPart? {
        // RFC 9112 §2.2: ignore empty lines before a request line (some clients send
        // CR LF after a body). The scanner has no line yet when the buffer starts so.
        while buffer.readableCount >= 2 && buffer[offset: 0] == ASCII.carriageReturn
            && buffer[offset: 1] == ASCII.lineFeed
        {
            buffer.consume(2)
            scanner.reset()
        }
        guard
            let (line, headers) = try scanner.takeHead(
                from: &buffer, maxLength: maxHeadBytes, inputFinished: inputFinished, message: "request",
                firstLineName: "request line", firstLine: Self.parseRequestLine)
        else { return nil }
        let head = HTTPRequestHead(
            method: line.method, target: line.target, version: line.version, headers: headers)
        body = try framing(for: head.headers)
        return .head(head)
    }

    /// How the body of a request with `headers` is delimited (RFC 9112 §6.3).
    private func framing(for headers: HTTPHeaders) throws(HTTPError) -> BodyFraming {
        let length = try MessageFraming.contentLength(headers)
        guard let codings = MessageFraming.transferCodings(headers) else {
            return try .declaredLength(length ?? 0, limit: maxBodyBytes)
        }
        if length != nil { throw .conflictingFraming() }
        if let other = codings.first(where: { !HTTPHeaders.nameMatches($0, "chunked") }) {
            throw .unsupportedTransferCoding(String(other))
        }
        guard codings.count == 1 else {
            throw .invalidHeader(codings.isEmpty ? "empty Transfer-Encoding" : "chunked applied more than once")
        }
        return .chunked(ChunkedBodyState(limits: chunkedLimits))
    }

    /// `METHOD SP TARGET SP HTTP/1.x`: a token, a target of visible characters, a version.
    private static func parseRequestLine(
        _ line: UnsafeBufferPointer<UInt8>
    ) throws(HTTPError) -> (method: String, target: String, version: HTTPVersion) {
        var methodEnd = 0
        while methodEnd < line.count && ASCII.isTokenCharacter(line[methodEnd]) { methodEnd += 1 }
        guard methodEnd > 0, methodEnd < line.count, line[methodEnd] == ASCII.space else {
            throw .invalidRequestLine("the method must be a token followed by one space")
        }
        let targetStart = methodEnd + 1
        var targetEnd = targetStart
        while targetEnd < line.count && ASCII.isVisible(line[targetEnd]) { targetEnd += 1 }
        guard targetEnd > targetStart, targetEnd < line.count, line[targetEnd] == ASCII.space else {
            throw .invalidRequestLine("the target must be visible characters followed by one space")
        }
        let versionStart = targetEnd + 1
        guard line.count - versionStart == 8 else {
            throw .invalidRequestLine("the line must end in HTTP/1.1 or HTTP/1.0")
        }
        guard let minor = HeadParser.httpOneVersion(line, at: versionStart) else {
            if isOtherHTTPVersion(line, at: versionStart) { throw .unsupportedVersion() }
            throw .invalidRequestLine("the line must end in HTTP/1.1 or HTTP/1.0")
        }
        guard minor <= 1 else { throw .unsupportedVersion() }
        return (
            HeadParser.text(line, 0, methodEnd), HeadParser.text(line, targetStart, targetEnd),
            HTTPVersion(major: 1, minor: minor)
        )
    }

    /// `HTTP/d.d` with other digits: a well-formed version that is not served.
    private static func isOtherHTTPVersion(_ line: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let prefix: StaticString = "HTTP/"
        for index in 0..<5 where line[start + index] != prefix.utf8Start[index] { return false }
        return isDigit(line[start + 5]) && line[start + 6] == UInt8(ascii: ".") && isDigit(line[start + 7])
    }
}
