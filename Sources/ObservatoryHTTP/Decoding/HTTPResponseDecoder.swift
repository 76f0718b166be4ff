/// Decodes the responses on one client connection, fed bytes in any chunking.
///
/// Parts come out as soon as their bytes are in: the head, then the body piece by
/// piece as it arrives, then the end. That lets an endless chunked stream (etcd's
/// `/v3/watch`) be read one chunk at a time. After ``HTTPResponsePart/end`` the
/// decoder reads the next response on the same connection.
///
/// ```swift
/// var decoder = HTTPResponseDecoder()
/// decoder.requestSent(method: "POST")
/// decoder.append(receivedBytes)          // or decoder.finish() when the peer closed
/// while let part = try decoder.next() {
///     switch part {
///     case .head(let head): status = head.status.code
///     case .body(let bytes): body += bytes
///     case .end: complete(status, body)
///     }
/// }
/// ```
///
/// Bodies are delimited as RFC 9112 §6.3 says: none for a response to HEAD and for
/// 1xx, 204 and 304; `Transfer-Encoding: chunked`; `Content-Length`; otherwise the
/// connection's close, announced with ``finish()``. An interim 1xx response comes out
/// as a head and an end, then the final response follows; after 101 the connection
/// belongs to another protocol and ``takeUpgradedBytes()`` hands over what was read.
///
/// Any failure is thrown again on every later call: the connection has lost its framing.
///
/// Its eleven stored properties are the limits, the input buffer, the head
/// scanner, the body framing state and the per-response flags (HEAD, upgrade)
/// that one decoding step reads together.
public struct HTTPResponseDecoder: Sendable {
    /// The default bound on a status line and headers: 16 KiB.
    public static let defaultMaxHeadBytes = 16 << 10

    private enum State: Sendable {
        case head
        case fixedLength(remaining: Int)
        case chunked
        case untilClose(received: Int)
        case upgraded
        case closed
    }

    /// The longest status line and headers accepted, the empty line included.
    public let maxHeadBytes: Int
    /// The bounds on the body (whatever its framing), and on chunk size lines and trailers.
    public let bodyLimits: ChunkedBodyLimits
    /// The most body bytes per response, or `nil` for no bound.
    public var maxBodyBytes: Int? { bodyLimits.maxBodyBytes }

    private var buffer = InputBuffer()
    private var scanner = HeadScanner()
    private var chunked: ChunkedBodyState
    private var state = State.head
    private var failure: HTTPError?
    private var inputFinished = false
    private var upgradeEndPending = false
    /// For each request sent whose response has not begun: whether it was a HEAD request.
    private var pendingHeadRequests: [Bool] = []

    /// Creates a decoder with the given limits; by default heads are bounded to 16 KiB
    /// and bodies are not (a watch stream has no end).
    public init(maxHeadBytes: Int = defaultMaxHeadBytes, bodyLimits: ChunkedBodyLimits = ChunkedBodyLimits()) {
        self.maxHeadBytes = maxHeadBytes
        self.bodyLimits = bodyLimits
        self.chunked = ChunkedBodyState(limits: bodyLimits)
    }

    /// The bytes held that have not been handed out yet.
    public var bufferedByteCount: Int {
        buffer.readableCount
    }

    /// The bytes of memory the input buffer holds, for a connection's memory accounting.
    public var retainedByteCount: Int {
        buffer.retainedByteCount
    }

    /// Records that a request was sent, so that a response to HEAD is known to have no
    /// body. Call it once per request, in order; without a call a response is taken to
    /// answer a request other than HEAD.
    public mutating func requestSent(method: String) {
        pendingHeadRequests.append(method == "HEAD")
    }

    /// Adds received bytes; bytes after a failure are dropped.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        guard failure == nil else { return }
        buffer.append(bytes)
    }

    /// Adds received bytes straight from a read buffer.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        buffer.append(bytes)
    }

    /// Records that the peer closed the connection: a body delimited by the close ends,
    /// and a response cut short makes ``next()`` throw `unexpectedEnd`.
    public mutating func finish() {
        inputFinished = true
    }

    /// After a 101 response: the bytes read past its head, which belong to the new
    /// protocol. The decoder holds nothing afterwards.
    public mutating func takeUpgradedBytes() -> [UInt8] {
        buffer.takeRemaining()
    }

    /// The next part of a response, or `nil` when more bytes are needed.
    ///
    /// - Throws: ``HTTPError``: `invalidStatusLine`, `invalidHeader`, `invalidLineEnding`,
    ///   `headTooLarge`, `invalidContentLength`, `invalidChunk`, `bodyTooLarge`, or
    ///   `unexpectedEnd` after ``finish()``; then on every later call.
    public mutating func next() throws(HTTPError) -> HTTPResponsePart? {
        if let failure { throw failure }
        do {
            return try decodeNext()
        } catch {
            failure = error
            buffer.release()
            throw error
        }
    }

    private mutating func decodeNext() throws(HTTPError) -> HTTPResponsePart? {
        switch state {
        case .head:
            return try decodeHead()
        case .fixedLength(let remaining):
            if remaining == 0 {
                state = upgradeEndPending ? .upgraded : .head
                upgradeEndPending = false
                return .end
            }
            let available = min(remaining, buffer.readableCount)
            guard available > 0 else {
                if inputFinished { throw .unexpectedEnd("before the end of a body of declared length") }
                return nil
            }
            state = .fixedLength(remaining: remaining - available)
            return .body(buffer.read(available))
        case .chunked:
            switch try chunked.next(from: &buffer) {
            case .data(let bytes):
                return .body(bytes)
            case .end:
                state = .head
                return .end
            case nil:
                if inputFinished { throw .unexpectedEnd("inside a chunked body") }
                return nil
            }
        case .untilClose(let received):
            let available = buffer.readableCount
            if available > 0 {
                if let maxBodyBytes, available > maxBodyBytes - received { throw .bodyTooLarge(limit: maxBodyBytes) }
                state = .untilClose(received: received + available)
                return .body(buffer.read(available))
            }
            guard inputFinished else { return nil }
            state = .closed
            return .end
        case .upgraded, .closed:
            return nil
        }
    }

    private mutating func decodeHead() throws(HTTPError) -> HTTPResponsePart? {
        switch scanner.scan(buffer, maxLength: maxHeadBytes) {
        case .incomplete:
            if inputFinished && buffer.readableCount > 0 { throw .unexpectedEnd("inside a response head") }
            return nil
        case .tooLarge:
            throw .headTooLarge(limit: maxHeadBytes, what: "status line and headers")
        case .complete(let length):
            let (firstLine, headers) = try HeadParser.parse(
                buffer, length: length, lineFeedOffsets: scanner.lineFeedOffsets, firstLine: Self.parseStatusLine)
            buffer.consume(length)
            scanner.reset()
            let head = HTTPResponseHead(status: firstLine.status, version: firstLine.version, headers: headers)
            state = try bodyState(for: head)
            return .head(head)
        }
    }

    /// How the body of a response with `head` is delimited (RFC 9112 §6.3).
    private mutating func bodyState(for head: HTTPResponseHead) throws(HTTPError) -> State {
        if head.status.code == 101 {
            upgradeEndPending = true
            return .fixedLength(remaining: 0)
        }
        // An interim response answers no request on its own: the final one follows.
        if head.status.isInformational { return .fixedLength(remaining: 0) }
        let answersHeadRequest = pendingHeadRequests.isEmpty ? false : pendingHeadRequests.removeFirst()
        if answersHeadRequest || head.status.forbidsBody { return .fixedLength(remaining: 0) }
        if let codings = MessageFraming.transferCodings(head.headers) {
            guard let last = codings.last, HTTPHeaders.nameMatches(last, "chunked") else {
                return .untilClose(received: 0)
            }
            chunked = ChunkedBodyState(limits: bodyLimits)
            return .chunked
        }
        if let length = try MessageFraming.contentLength(head.headers) {
            if let maxBodyBytes, length > maxBodyBytes { throw .bodyTooLarge(limit: maxBodyBytes) }
            return .fixedLength(remaining: length)
        }
        return .untilClose(received: 0)
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
