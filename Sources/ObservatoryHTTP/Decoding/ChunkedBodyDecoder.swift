/// Decodes a body in the chunked transfer coding (RFC 9112 §7.1), fed in any chunking.
///
/// Data is handed out as it arrives, not when a chunk is complete, so an endless
/// stream (etcd's `/v3/watch`, Server-Sent Events) flows through with bounded memory.
/// Chunk extensions and trailer fields are read past and ignored.
///
/// ```swift
/// var decoder = ChunkedBodyDecoder()
/// decoder.append(Array("5\r\nhello\r\n0\r\n\r\n".utf8))
/// while let part = try decoder.next() {
///     switch part {
///     case .data(let bytes): consume(bytes)
///     case .end: finish()
///     }
/// }
/// ```
///
/// After a failure the decoder throws the same error on every call: the stream has
/// lost its framing. The request and response decoders use the same machine.
public struct ChunkedBodyDecoder: Sendable {
    /// A piece of a chunked body.
    public enum Part: Sendable, Hashable {
        /// Body bytes, in order; one chunk may come as several pieces.
        case data([UInt8])
        /// The last chunk and the trailers have been read.
        case end
    }

    private var core: DecoderCore<ChunkedBodyState>

    /// Creates a decoder with the given limits.
    public init(limits: ChunkedBodyLimits = ChunkedBodyLimits()) {
        core = DecoderCore(machine: ChunkedBodyState(limits: limits))
    }

    /// The bytes held that were not handed out yet, such as a pipelined next message after the end.
    public var bufferedByteCount: Int {
        core.bufferedByteCount
    }

    /// Adds received bytes; bytes after a failure are dropped.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        core.append(bytes)
    }

    /// The next piece of the body, or `nil` when more bytes are needed (or after the end).
    ///
    /// - Throws: ``HTTPError`` with code `invalidChunk`, `bodyTooLarge` or `headTooLarge`
    ///   (trailers); then on every later call.
    public mutating func next() throws(HTTPError) -> Part? {
        try core.next()
    }
}

extension ChunkedBodyState: DecodingMachine {
    /// The next piece of the body; the end of input is the caller's to judge, as a
    /// standalone chunked body is never cut short by a close it could see.
    mutating func next(from buffer: inout InputBuffer, inputFinished: Bool) throws(HTTPError) -> ChunkedBodyDecoder
        .Part?
    {
        try next(from: &buffer)
    }
}
