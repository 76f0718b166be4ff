/// The chunked-body machine (RFC 9112 §7.1), reading from a buffer it does not own,
/// so that the request and response decoders run it on their own buffers without
/// copying, and ``ChunkedBodyDecoder`` runs it on its own.
struct ChunkedBodyState: Sendable {
    private enum Phase: Sendable {
        case sizeLine
        case data(remaining: Int)
        case dataEnd
        case trailers
        case done
    }

    private var phase = Phase.sizeLine
    /// Bytes of the current line already searched for LF, from the read index.
    private var searchedCount = 0
    /// Trailer bytes seen so far, against ``ChunkedBodyLimits/maxTrailerBytes``.
    private var trailerByteCount = 0
    /// Body bytes announced so far, against ``ChunkedBodyLimits/maxBodyBytes``.
    private(set) var bodyByteCount = 0
    let limits: ChunkedBodyLimits

    init(limits: ChunkedBodyLimits) {
        self.limits = limits
    }

    /// The next piece of the body from `buffer`, or `nil` when more bytes are needed.
    mutating func next(from buffer: inout InputBuffer) throws(HTTPError) -> ChunkedBodyDecoder.Part? {
        while true {
            switch phase {
            case .sizeLine:
                guard let line = try takeLine(from: &buffer, limit: limits.maxSizeLineBytes, kind: .sizeLine)
                else { return nil }
                let size = try buffer.withBytes(from: line.start, to: line.end) { bytes throws(HTTPError) in
                    try Self.parseSize(bytes)
                }
                buffer.consume(line.next)
                if let maxBodyBytes = limits.maxBodyBytes, size > maxBodyBytes - bodyByteCount {
                    throw .bodyTooLarge(limit: maxBodyBytes)
                }
                bodyByteCount += size
                phase = size == 0 ? .trailers : .data(remaining: size)
            case .data(let remaining):
                let available = min(remaining, buffer.readableCount)
                guard available > 0 else { return nil }
                let bytes = buffer.read(available)
                phase = available == remaining ? .dataEnd : .data(remaining: remaining - available)
                return .data(bytes)
            case .dataEnd:
                guard buffer.readableCount >= 2 else { return nil }
                guard buffer[offset: 0] == ASCII.carriageReturn, buffer[offset: 1] == ASCII.lineFeed else {
                    throw .invalidChunk("chunk data is not followed by CR LF")
                }
                buffer.consume(2)
                phase = .sizeLine
            case .trailers:
                let remainingLimit = limits.maxTrailerBytes - trailerByteCount
                guard let line = try takeLine(from: &buffer, limit: remainingLimit, kind: .trailer) else {
                    return nil
                }
                // Trailer fields are read past and ignored: nothing we serve or call needs
                // them, and merging them into the headers would let a body rewrite its head.
                trailerByteCount += line.next
                buffer.consume(line.next)
                if line.start == line.end {
                    phase = .done
                    return .end
                }
            case .done:
                return nil
            }
        }
    }

    /// The next line (offsets of its content and of the byte after its LF), or `nil`
    /// when its LF has not arrived; the line must end in CR LF and fit in `limit`.
    private mutating func takeLine(
        from buffer: inout InputBuffer, limit: Int, kind: LineKind
    ) throws(HTTPError) -> (start: Int, end: Int, next: Int)? {
        guard let lineFeed = buffer.firstOffset(of: ASCII.lineFeed, from: searchedCount) else {
            searchedCount = buffer.readableCount
            if searchedCount > limit { throw tooLong(kind) }
            return nil
        }
        searchedCount = 0
        if lineFeed + 1 > limit { throw tooLong(kind) }
        guard lineFeed > 0, buffer[offset: lineFeed - 1] == ASCII.carriageReturn else {
            throw .invalidChunk("\(kind == .sizeLine ? "chunk size line" : "trailer line") ends in a bare LF")
        }
        return (0, lineFeed - 1, lineFeed + 1)
    }

    private enum LineKind {
        case sizeLine
        case trailer
    }

    private func tooLong(_ kind: LineKind) -> HTTPError {
        switch kind {
        case .sizeLine: .invalidChunk("chunk size line exceeds \(limits.maxSizeLineBytes) bytes")
        case .trailer: .headTooLarge(limit: limits.maxTrailerBytes, what: "trailer section")
        }
    }

    /// `chunk-size [BWS] [; extensions]`: hexadecimal digits, then extensions that are ignored.
    private static func parseSize(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPError) -> Int {
        var size = 0
        var index = 0
        while index < line.count, let digit = ASCII.hexValue(line[index]) {
            // 15 hex digits keep the size below 2^60: no overflow, and far above any limit.
            guard index < 15 else { throw .invalidChunk("chunk size has too many digits") }
            size = size << 4 | digit
            index += 1
        }
        guard index > 0 else { throw .invalidChunk("chunk size is not a hexadecimal number") }
        while index < line.count && (line[index] == ASCII.space || line[index] == ASCII.horizontalTab) {
            index += 1
        }
        guard index == line.count || line[index] == ASCII.semicolon else {
            throw .invalidChunk("unexpected byte after the chunk size")
        }
        for byte in line[index...] where !ASCII.isFieldValueCharacter(byte) {
            throw .invalidChunk("control byte in a chunk extension")
        }
        return size
    }
}
