/// Parses a complete message head found by ``HeadScanner``: the first line and the
/// header lines, strictly as RFC 9112 writes them.
///
/// Strict because a lenient parser is how request smuggling starts: a line that one
/// server reads as a header and another as part of the previous one (obs-fold), or a
/// name with a space before the colon that a proxy ignores and we would honour.
enum HeadParser {
    /// The head's bytes and where its lines are, with line ends checked.
    struct Lines {
        let head: UnsafeBufferPointer<UInt8>
        let lineFeedOffsets: [Int]

        /// The number of lines, the final empty one included.
        var count: Int { lineFeedOffsets.count }

        /// Line `index` without its CR LF.
        func line(_ index: Int) throws(HTTPError) -> UnsafeBufferPointer<UInt8> {
            let start = index == 0 ? 0 : lineFeedOffsets[index - 1] + 1
            let lineFeed = lineFeedOffsets[index]
            guard lineFeed > start, head[lineFeed - 1] == ASCII.carriageReturn else {
                throw .invalidLineEnding()
            }
            return UnsafeBufferPointer(rebasing: head[start..<(lineFeed - 1)])
        }
    }

    /// Parses the head in `buffer` (of `length` bytes from its read index) with
    /// `parseFirstLine`, then its headers.
    static func parse<FirstLine>(
        _ buffer: InputBuffer, length: Int, lineFeedOffsets: [Int],
        firstLine parseFirstLine: (UnsafeBufferPointer<UInt8>) throws(HTTPError) -> FirstLine
    ) throws(HTTPError) -> (FirstLine, HTTPHeaders) {
        try buffer.withBytes(from: 0, to: length) { head throws(HTTPError) in
            let lines = Lines(head: head, lineFeedOffsets: lineFeedOffsets)
            let first = try parseFirstLine(try lines.line(0))
            var headers = HTTPHeaders()
            // The last line is the empty one that ends the head.
            for index in 1..<max(1, lines.count - 1) {
                let field = try parseHeaderLine(try lines.line(index))
                headers.add(name: field.name, value: field.value)
            }
            if lines.count > 1 { _ = try lines.line(lines.count - 1) }
            return (first, headers)
        }
    }

    /// One `name: value` line.
    static func parseHeaderLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPError) -> HTTPHeaders.Field {
        guard let first = line.first else { throw .invalidHeader("empty line inside the head") }
        if first == ASCII.space || first == ASCII.horizontalTab {
            throw .invalidHeader("a line starting with whitespace (obsolete line folding) is not accepted")
        }
        var colon = 0
        while colon < line.count && line[colon] != ASCII.colon {
            let byte = line[colon]
            guard ASCII.isTokenCharacter(byte) else {
                if byte == ASCII.space || byte == ASCII.horizontalTab {
                    throw .invalidHeader("whitespace between the field name and the colon")
                }
                throw .invalidHeader("byte 0x\(String(byte, radix: 16)) is not allowed in a field name")
            }
            colon += 1
        }
        guard colon < line.count else { throw .invalidHeader("no colon after the field name") }
        guard colon > 0 else { throw .invalidHeader("empty field name") }
        var valueStart = colon + 1
        var valueEnd = line.count
        while valueStart < valueEnd && isWhitespace(line[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart && isWhitespace(line[valueEnd - 1]) { valueEnd -= 1 }
        for index in valueStart..<valueEnd where !ASCII.isFieldValueCharacter(line[index]) {
            throw .invalidHeader("control byte 0x\(String(line[index], radix: 16)) in a field value")
        }
        return HTTPHeaders.Field(
            name: text(line, 0, colon), value: text(line, valueStart, valueEnd))
    }

    /// `HTTP/1.x` at `start`; the minor digit, or `nil` when the bytes are not that.
    static func httpOneVersion(_ line: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        guard line.count >= start + 8 else { return nil }
        let prefix: StaticString = "HTTP/1."
        for index in 0..<7 where line[start + index] != prefix.utf8Start[index] {
            return nil
        }
        let minor = line[start + 7]
        guard minor >= UInt8(ascii: "0") && minor <= UInt8(ascii: "9") else { return nil }
        return Int(minor - UInt8(ascii: "0"))
    }

    /// The bytes from `start` to `end` as text.
    @inline(__always)
    static func text(_ line: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: line[start..<end]), as: UTF8.self)
    }

    @inline(__always)
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == ASCII.space || byte == ASCII.horizontalTab
    }
}
