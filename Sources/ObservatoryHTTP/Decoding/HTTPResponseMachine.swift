/// The rules of ``HTTPResponseDecoder``, run by its ``DecoderCore``: a response head,
/// then the body as the head and the request it answers frame it.
///
/// Its stored properties are the limits, the head scanner, the phase with the
/// body's framing, and the per-response facts (HEAD, upgrade) that one step reads together.
struct HTTPResponseMachine: DecodingMachine {
    private enum Phase: Sendable {
        case head
        case body(upgradesAfter: Bool)
        case upgraded
        case closed
    }

    let maxHeadBytes: Int
    let bodyLimits: ChunkedBodyLimits
    private var scanner = HeadScanner()
    private var phase = Phase.head
    private var body = BodyFraming.fixedLength(remaining: 0)
    /// For each request sent whose response has not begun: whether it was a HEAD request.
    var pendingHeadRequests: [Bool] = []

    init(maxHeadBytes: Int, bodyLimits: ChunkedBodyLimits) {
        self.maxHeadBytes = maxHeadBytes
        self.bodyLimits = bodyLimits
    }

    mutating func next(from buffer: inout InputBuffer, inputFinished: Bool) throws(HTTPError) -> HTTPResponsePart? {
        switch phase {
        case .head:
            return try decodeHead(from: &buffer, inputFinished: inputFinished)
        case .body(let upgradesAfter):
            switch try body.next(from: &buffer, inputFinished: inputFinished) {
            case .data(let bytes):
                return .body(bytes)
            case .end:
                if upgradesAfter {
                    phase = .upgraded
                } else if case .untilClose = body {
                    phase = .closed
                } else {
                    phase = .head
                }
                return .end
            case nil:
                return nil
            }
        case .upgraded, .closed:
            return nil
        }
    }

    private mutating func decodeHead(
        from buffer: inout InputBuffer, inputFinished: Bool
    ) throws(HTTPError) -> HTTPResponsePart? {
        guard
            let (firstLine, headers) = try scanner.takeHead(
                from: &buffer, maxLength: maxHeadBytes, inputFinished: inputFinished, message: "response",
                firstLineName: "status line", firstLine: Self.parseStatusLine)
        else { return nil }
        let head = HTTPResponseHead(status: firstLine.status, version: firstLine.version, headers: headers)
        body = try framing(for: head)
        phase = .body(upgradesAfter: head.status.code == 101)
        return .head(head)
    }

    /// How the body of a response with `head` is delimited (RFC 9112 §6.3).
    private mutating func framing(for head: HTTPResponseHead) throws(HTTPError) -> BodyFraming {
        // An interim response (101 included) answers no request on its own: the final one follows.
        if head.status.isInformational { return .fixedLength(remaining: 0) }
        let answersHeadRequest = pendingHeadRequests.isEmpty ? false : pendingHeadRequests.removeFirst()
        if answersHeadRequest || head.status.forbidsBody { return .fixedLength(remaining: 0) }
        if let codings = MessageFraming.transferCodings(head.headers) {
            guard let last = codings.last, HTTPHeaders.nameMatches(last, "chunked") else {
                return .untilClose(received: 0, limit: bodyLimits.maxBodyBytes)
            }
            return .chunked(ChunkedBodyState(limits: bodyLimits))
        }
        if let length = try MessageFraming.contentLength(head.headers) {
            return try .declaredLength(length, limit: bodyLimits.maxBodyBytes)
        }
        return .untilClose(received: 0, limit: bodyLimits.maxBodyBytes)
    }

    /// `HTTP/1.x SP 3DIGIT [SP reason-phrase]`; the space before an empty reason may be missing.
    private static func parseStatusLine(
        _ line: UnsafeBufferPointer<UInt8>
    ) throws(HTTPError) -> (version: HTTPVersion, status: HTTPStatus) {
        guard let minor = HeadParser.httpOneVersion(line, at: 0) else {
            throw .invalidStatusLine("it does not start with HTTP/1.x")
        }
        guard line.count >= 12, line[8] == ASCII.space else { throw .invalidStatusLine("no status code") }
        var code = 0
        for index in 9..<12 {
            let byte = line[index]
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else {
                throw .invalidStatusLine("the status code is not three digits")
            }
            code = code * 10 + Int(byte - UInt8(ascii: "0"))
        }
        guard code >= 100 else { throw .invalidStatusLine("status code \(code) is below 100") }
        var reason = ""
        if line.count > 12 {
            guard line[12] == ASCII.space else { throw .invalidStatusLine("the status code is not three digits") }
            for index in 13..<line.count where !ASCII.isFieldValueCharacter(line[index]) {
                throw .invalidStatusLine("control byte in the reason phrase")
            }
            reason = HeadParser.text(line, 13, line.count)
        }
        return (HTTPVersion(major: 1, minor: minor), HTTPStatus(code: code, reasonPhrase: reason))
    }
}
