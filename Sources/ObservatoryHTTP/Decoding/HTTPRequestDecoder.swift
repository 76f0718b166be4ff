/// Decodes the requests on one server connection, fed bytes in any chunking.
///
/// Parsing is strict, because this is the server's edge: lines end in CR LF, header
/// names are tokens with the colon right after them, folded lines are refused, and
/// a request that frames its body twice (`Content-Length` and `Transfer-Encoding`,
/// or two different lengths) is refused rather than guessed at. Each failure carries
/// the status to answer with (``HTTPError/status``): 400 for malformed input, 413 for
/// a body over ``maxBodyBytes``, 431 for a head over ``maxHeadBytes``, 501 for a
/// transfer coding other than chunked, 505 for a version other than HTTP/1.0 or 1.1.
///
/// ```swift
/// var decoder = HTTPRequestDecoder(maxBodyBytes: configuration.maxFrameBytes)
/// decoder.append(receivedBytes)
/// while let part = try decoder.next() {
///     switch part {
///     case .head(let head): begin(head)
///     case .body(let bytes): body += bytes
///     case .end: respond()   // then the next pipelined request, if any
///     }
/// }
/// ```
///
/// Any failure is thrown again on every later call: the connection has lost its
/// framing, and the server answers and closes it.
public struct HTTPRequestDecoder: Sendable {
    /// The default bound on a request line and headers: 16 KiB, as PROTOCOL.md says.
    public static let defaultMaxHeadBytes = 16 << 10
    /// The default bound on a body: 1 MiB, the line protocol's default frame limit.
    public static let defaultMaxBodyBytes = 1 << 20

    private enum State: Sendable {
        case head
        case fixedLength(remaining: Int)
        case chunked
    }

    /// The longest request line and headers accepted, the empty line included.
    public let maxHeadBytes: Int
    /// The most body bytes accepted per request.
    public let maxBodyBytes: Int

    private let chunkedLimits: ChunkedBodyLimits
    private var buffer = InputBuffer()
    private var scanner = HeadScanner()
    private var chunked: ChunkedBodyState
    private var state = State.head
    private var failure: HTTPError?
    private var inputFinished = false

    /// Creates a decoder with the given limits.
    public init(
        maxHeadBytes: Int = defaultMaxHeadBytes, maxBodyBytes: Int = defaultMaxBodyBytes,
        maxChunkSizeLineBytes: Int = ChunkedBodyLimits.defaultMaxSizeLineBytes
    ) {
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
        chunkedLimits = ChunkedBodyLimits(
            maxSizeLineBytes: maxChunkSizeLineBytes, maxTrailerBytes: maxHeadBytes, maxBodyBytes: maxBodyBytes)
        chunked = ChunkedBodyState(limits: chunkedLimits)
    }

    /// The bytes held that have not been handed out yet (a partial request, or pipelined ones).
    public var bufferedByteCount: Int {
        buffer.readableCount
    }

    /// The bytes of memory the input buffer holds, for a connection's memory accounting.
    public var retainedByteCount: Int {
        buffer.retainedByteCount
    }

    /// Whether the decoder is between requests with nothing buffered: a close now loses nothing.
    public var isIdle: Bool {
        if case .head = state { return buffer.readableCount == 0 && failure == nil }
        return false
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

    /// Records that the client closed its side: a request cut short then makes
    /// ``next()`` throw `unexpectedEnd`.
    public mutating func finish() {
        inputFinished = true
    }

    /// Hands over the bytes read past the current request, for a connection that
    /// switches protocols (a WebSocket upgrade). The decoder holds nothing afterwards.
    public mutating func takeRemainingBytes() -> [UInt8] {
        buffer.takeRemaining()
    }

    /// The next part of a request, or `nil` when more bytes are needed.
    ///
    /// - Throws: ``HTTPError`` with its ``HTTPError/status`` set; then on every later call.
    public mutating func next() throws(HTTPError) -> HTTPRequestPart? {
        if let failure { throw failure }
        do {
            return try decodeNext()
        } catch {
            failure = error
            buffer.release()
            throw error
        }
    }

    private mutating func decodeNext() throws(HTTPError) -> HTTPRequestPart? {
        switch state {
        case .head:
            return try decodeHead()
        case .fixedLength(let remaining):
            if remaining == 0 {
                state = .head
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
        }
    }

    private mutating func decodeHead() throws(HTTPError) -> HTTPRequestPart? {
        // RFC 9112 §2.2: ignore empty lines before a request line (some clients send
        // CR LF after a body). The scanner has no line yet when the buffer starts so.
        while buffer.readableCount >= 2 && buffer[offset: 0] == ASCII.carriageReturn
            && buffer[offset: 1] == ASCII.lineFeed
        {
            buffer.consume(2)
            scanner.reset()
        }
        switch scanner.scan(buffer, maxLength: maxHeadBytes) {
        case .incomplete:
            if inputFinished && buffer.readableCount > 0 { throw .unexpectedEnd("inside a request head") }
            return nil
        case .tooLarge:
            throw .headTooLarge(limit: maxHeadBytes)
        case .complete(let length):
            let (line, headers) = try HeadParser.parse(
                buffer, length: length, lineFeedOffsets: scanner.lineFeedOffsets, firstLine: Self.parseRequestLine)
            buffer.consume(length)
            scanner.reset()
            let head = HTTPRequestHead(
                method: line.method, target: line.target, version: line.version, headers: headers)
            state = try bodyState(for: head.headers)
            return .head(head)
        }
    }

    /// How the body of a request with `headers` is delimited (RFC 9112 §6.3).
    private mutating func bodyState(for headers: HTTPHeaders) throws(HTTPError) -> State {
        let length = try MessageFraming.contentLength(headers)
        guard let codings = MessageFraming.transferCodings(headers) else {
            guard let length else { return .fixedLength(remaining: 0) }
            if length > maxBodyBytes { throw .bodyTooLarge(limit: maxBodyBytes) }
            return .fixedLength(remaining: length)
        }
        if length != nil { throw .conflictingFraming() }
        if let other = codings.first(where: { !HTTPHeaders.nameMatches($0, "chunked") }) {
            throw .unsupportedTransferCoding(String(other))
        }
        guard codings.count == 1 else {
            throw .invalidHeader(codings.isEmpty ? "empty Transfer-Encoding" : "chunked applied more than once")
        }
        chunked = ChunkedBodyState(limits: chunkedLimits)
        return .chunked
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
