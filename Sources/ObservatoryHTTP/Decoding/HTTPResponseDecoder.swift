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
public struct HTTPResponseDecoder: Sendable {
    /// The default bound on a status line and headers: 16 KiB.
    public static let defaultMaxHeadBytes = 16 << 10

    private var core: DecoderCore<HTTPResponseMachine>

    /// Creates a decoder with the given limits; by default heads are bounded to 16 KiB
    /// and bodies are not (a watch stream has no end).
    public init(maxHeadBytes: Int = defaultMaxHeadBytes, bodyLimits: ChunkedBodyLimits = ChunkedBodyLimits()) {
        core = DecoderCore(machine: HTTPResponseMachine(maxHeadBytes: maxHeadBytes, bodyLimits: bodyLimits))
    }

    /// The longest status line and headers accepted, the empty line included.
    public var maxHeadBytes: Int {
        core.machine.maxHeadBytes
    }

    /// The bounds on the body (whatever its framing), and on chunk size lines and trailers.
    public var bodyLimits: ChunkedBodyLimits {
        core.machine.bodyLimits
    }

    /// The most body bytes per response, or `nil` for no bound.
    public var maxBodyBytes: Int? { bodyLimits.maxBodyBytes }

    /// The bytes held that have not been handed out yet.
    public var bufferedByteCount: Int {
        core.bufferedByteCount
    }

    /// The bytes of memory the input buffer holds, for a connection's memory accounting.
    public var retainedByteCount: Int {
        core.retainedByteCount
    }

    /// Records that a request was sent, so that a response to HEAD is known to have no
    /// body. Call it once per request, in order; without a call a response is taken to
    /// answer a request other than HEAD.
    public mutating func requestSent(method: String) {
        core.machine.pendingHeadRequests.append(method == "HEAD")
    }

    /// Adds received bytes; bytes after a failure are dropped.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        core.append(bytes)
    }

    /// Adds received bytes straight from a read buffer.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        core.append(bytes)
    }

    /// Records that the peer closed the connection: a body delimited by the close ends,
    /// and a response cut short makes ``next()`` throw `unexpectedEnd`.
    public mutating func finish() {
        core.finish()
    }

    /// After a 101 response: the bytes read past its head, which belong to the new
    /// protocol. The decoder holds nothing afterwards.
    public mutating func takeUpgradedBytes() -> [UInt8] {
        core.takeRemainingBytes()
    }

    /// The next part of a response, or `nil` when more bytes are needed.
    ///
    /// - Throws: ``HTTPError``: `invalidStatusLine`, `invalidHeader`, `invalidLineEnding`,
    ///   `headTooLarge`, `invalidContentLength`, `invalidChunk`, `bodyTooLarge`, or
    ///   `unexpectedEnd` after ``finish()``; then on every later call.
    public mutating func next() throws(HTTPError) -> HTTPResponsePart? {
        try core.next()
    }
}
