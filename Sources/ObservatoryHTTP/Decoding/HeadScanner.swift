/// Finds where a message head (first line and header lines) ends, line by line,
/// searching each byte once however the input is chunked.
///
/// The head ends at the first empty line. Line ends are recorded as offsets from
/// the head's start, so the parser does not search again. A bare LF also ends a
/// line here; the parser then rejects it, so that a strict decoder reports the
/// exact fault rather than waiting for a CR LF that never comes.
struct HeadScanner: Sendable {
    /// Offsets of each LF found, from the start of the head.
    private(set) var lineFeedOffsets: [Int] = []
    /// Bytes searched so far, from the start of the head.
    private var searchedCount = 0

    /// What the bytes so far make of the head.
    enum Progress {
        /// The head is complete and `length` bytes long, its empty line included.
        case complete(length: Int)
        /// More bytes are needed.
        case incomplete
        /// The head is already over its limit.
        case tooLarge
    }

    /// Looks at the unconsumed bytes of `buffer` (the head starts at its read index).
    mutating func scan(_ buffer: InputBuffer, maxLength: Int) -> Progress {
        while let lineFeed = buffer.firstOffset(of: ASCII.lineFeed, from: searchedCount) {
            let lineStart = lineFeedOffsets.last.map { $0 + 1 } ?? 0
            searchedCount = lineFeed + 1
            if searchedCount > maxLength { return .tooLarge }
            lineFeedOffsets.append(lineFeed)
            let lineLength = lineFeed - lineStart
            let isEmptyLine =
                lineLength == 0 || (lineLength == 1 && buffer[offset: lineStart] == ASCII.carriageReturn)
            if isEmptyLine {
                return .complete(length: searchedCount)
            }
        }
        searchedCount = buffer.readableCount
        return searchedCount > maxLength ? .tooLarge : .incomplete
    }

    /// Forgets the head, ready for the next message.
    mutating func reset() {
        lineFeedOffsets.removeAll(keepingCapacity: true)
        searchedCount = 0
    }
}

extension HeadScanner {
    /// The next whole head in `buffer`, parsed and consumed; `nil` while more bytes are
    /// needed. What the request and response decoders do with a head's bytes.
    ///
    /// - Parameters:
    ///   - message: `request` or `response`, and `firstLineName` its first line's name, for the errors.
    ///   - inputFinished: whether the peer closed: a head cut short is then `unexpectedEnd`.
    mutating func takeHead<FirstLine>(
        from buffer: inout InputBuffer, maxLength: Int, inputFinished: Bool, message: String, firstLineName: String,
        firstLine parseFirstLine: (UnsafeBufferPointer<UInt8>) throws(HTTPError) -> FirstLine
    ) throws(HTTPError) -> (FirstLine, HTTPHeaders)? {
        switch scan(buffer, maxLength: maxLength) {
        case .incomplete:
            if inputFinished && buffer.readableCount > 0 { throw .unexpectedEnd("inside a \(message) head") }
            return nil
        case .tooLarge:
            throw .headTooLarge(limit: maxLength, what: "\(firstLineName) and headers")
        case .complete(let length):
            let head = try HeadParser.parse(
                buffer, length: length, lineFeedOffsets: lineFeedOffsets, firstLine: parseFirstLine)
            buffer.consume(length)
            reset()
            return head
        }
    }
}
