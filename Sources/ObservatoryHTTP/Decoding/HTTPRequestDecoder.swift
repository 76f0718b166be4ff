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
    /// The default bound on a request line and headers: 16 KiB, as docs/protocol.md says.
    public static let defaultMaxHeadBytes = 16 << 10
    /// The default bound on a body: 1 MiB, the line protocol's default frame limit.
    public static let defaultMaxBodyBytes = 1 << 20

    private var core: DecoderCore<HTTPRequestMachine>

    /// Creates a decoder with the given limits.
    public init(
        maxHeadBytes: Int = defaultMaxHeadBytes, maxBodyBytes: Int = defaultMaxBodyBytes,
        maxChunkSizeLineBytes: Int = ChunkedBodyLimits.defaultMaxSizeLineBytes
    ) {
        core = DecoderCore(
            machine: HTTPRequestMachine(
                maxHeadBytes: maxHeadBytes, maxBodyBytes: maxBodyBytes,
                chunkedLimits: ChunkedBodyLimits(
                    maxSizeLineBytes: maxChunkSizeLineBytes, maxTrailerBytes: maxHeadBytes,
                    maxBodyBytes: maxBodyBytes)))
    }

    /// The longest request line and headers accepted, the empty line included.
    public var maxHeadBytes: Int {
        core.machine.maxHeadBytes
    }

    /// The most body bytes accepted per request.
    public var maxBodyBytes: Int {
        core.machine.maxBodyBytes
    }

    /// The bytes held that have not been handed out yet (a partial request, or pipelined ones).
    public var bufferedByteCount: Int {
        core.bufferedByteCount
    }

    /// The bytes of memory the input buffer holds, for a connection's memory accounting.
    public var retainedByteCount: Int {
        core.retainedByteCount
    }

    /// Whether the decoder is between requests with nothing buffered: a close now loses nothing.
    public var isIdle: Bool {
        core.machine.body == nil && core.bufferedByteCount == 0 && core.failure == nil
    }

    /// Adds received bytes; bytes after a failure are dropped.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        core.append(bytes)
    }

    /// Adds received bytes straight from a read buffer.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        core.append(bytes)
    }

    /// Records that the client closed its side: a request cut short then makes
    /// ``next()`` throw `unexpectedEnd`.
    public mutating func finish() {
        core.finish()
    }

    /// Hands over the bytes read past the current request, for a connection that
    /// switches protocols (a WebSocket upgrade). The decoder holds nothing afterwards.
    public mutating func takeRemainingBytes() -> [UInt8] {
        core.takeRemainingBytes()
    }

    /// The next part of a request, or `nil` when more bytes are needed.
    ///
    /// - Throws: ``HTTPError`` with its ``HTTPError/status`` set; then on every later call.
    public mutating func next() throws(HTTPError) -> HTTPRequestPart? {
        try core.next()
    }
}
