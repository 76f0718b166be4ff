// Strings: the scan for their end, escapes, and UTF-8 validation, shared by
// every ``JSONValueMaker``, member names included.
extension JSONParser {
    /// Where a string's content is once ``scanString()`` has found its end.
    @usableFromInline
    package enum StringContent {
        /// In the input, with no escapes; `isASCII` when no byte is above 0x7F
        /// (only then is it known to be UTF-8 without checking).
        case inPlace(Range<Int>, isASCII: Bool)
        /// In ``scratch``, its escapes decoded.
        case unescaped
    }

    /// Parses a string starting at its opening quote and hands `body` its content,
    /// unescaped and checked to be UTF-8. The content is the input's own bytes when
    /// the string has no escapes (unescaped runs are never copied), else the
    /// decoded ``scratch``; either way it lives only during the call.
    @inlinable
    package mutating func withStringContent<Result>(_ body: (UTF8Span) -> Result) throws(JSONParseError) -> Result {
        let start = position + 1
        switch try scanString() {
        case .inPlace(let range, isASCII: true):
            return body(UTF8Span(unchecked: UnsafeBufferPointer(rebasing: bytes[range]).span, isKnownASCII: true))
        case .inPlace(let range, isASCII: false):
            return try withValidated(UnsafeBufferPointer(rebasing: bytes[range]), offset: start, body)
        case .unescaped:
            return try scratch.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> Result in
                try withValidated(buffer, offset: start, body)
            }
        }
    }

    /// Checks a string starting at its opening quote as ``withStringContent(_:)``
    /// does, with the same errors, and moves past it. An ASCII string without
    /// escapes, the usual kind, needs nothing after its closing quote is found.
    @inlinable
    package mutating func skipString() throws(JSONParseError) {
        let start = position + 1
        switch try scanString() {
        case .inPlace(_, isASCII: true):
            return
        case .inPlace(let range, isASCII: false):
            try withValidated(UnsafeBufferPointer(rebasing: bytes[range]), offset: start) { _ in }
        case .unescaped:
            try scratch.withUnsafeBufferPointer { (buffer) throws(JSONParseError) in
                try withValidated(buffer, offset: start) { _ in }
            }
        }
    }

    /// Finds the end of the string starting at ``position`` (its opening quote)
    /// and moves past it, decoding it into ``scratch`` if it has escapes. UTF-8 is
    /// not checked here: the caller does, after every other error, as before.
    @inlinable
    package mutating func scanString() throws(JSONParseError) -> StringContent {
        let start = position + 1
        var index = start
        var isASCII = true
        while true {
            index = endOfPlainASCII(from: index)
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                position = index + 1
                return .inPlace(start..<index, isASCII: isASCII)
            }
            if byte == UInt8(ascii: "\\") {
                scratch.removeAll(keepingCapacity: true)
                scratch.append(contentsOf: bytes[start..<index])
                position = index
                try parseEscapedString()
                return .unescaped
            }
            if byte < 0x20 {
                position = index
                throw error(.controlCharacterInString, "byte 0x\(hex(byte)) must be escaped")
            }
            isASCII = isASCII && byte < 0x80
            index += 1
        }
        position = bytes.count
        throw error(.unexpectedEnd, "unterminated string")
    }

    /// The index of the first byte from `index` on that a string scan must look
    /// at: a quote, a backslash, a control character or a non-ASCII byte (or,
    /// within the last seven bytes, `index` itself). It tests eight bytes at a
    /// time, since most string bytes are plain, and lands on the special byte
    /// itself, so a short string costs one test rather than one per byte.
    @inlinable
    package func endOfPlainASCII(from index: Int) -> Int {
        Self.endOfPlainASCII(in: bytes, from: index)
    }

    /// ``endOfPlainASCII(from:)`` over any bytes, for scanners other than the parser.
    @inlinable
    package static func endOfPlainASCII(in bytes: UnsafeBufferPointer<UInt8>, from index: Int) -> Int {
        guard let base = bytes.baseAddress else { return index }
        var index = index
        while bytes.count - index >= 8 {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            let special = specialBytes(in: word)
            if special != 0 {
                return index + special.trailingZeroBitCount / 8
            }
            index += 8
        }
        return index
    }

    /// The high bit of each byte of `word` (the first input byte in the lowest
    /// bits) that is a quote, a backslash, below 0x20 or above 0x7F. Exact up to
    /// and including the lowest such byte; bytes above it may be marked wrongly,
    /// which does not matter, since the scan stops at the lowest.
    @inlinable
    package static func specialBytes(in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        // A byte below the limit (limit ≤ 0x80) borrows when the limit is
        // subtracted from it, and its high bit was clear: it is marked. Bytes
        // below the lowest such byte see no borrow, so they are marked only if
        // they are below the limit themselves.
        func bytesBelow(_ limit: UInt64, in value: UInt64) -> UInt64 {
            (value &- ones &* limit) & ~value & highBits
        }
        return bytesBelow(1, in: word ^ (ones &* UInt64(UInt8(ascii: "\""))))
            | bytesBelow(1, in: word ^ (ones &* UInt64(UInt8(ascii: "\\"))))
            | bytesBelow(0x20, in: word)
            | word & highBits
    }

    /// Continues a string from its first backslash to its closing quote, decoding into ``scratch``.
    @inlinable
    package mutating func parseEscapedString() throws(JSONParseError) {
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return
            case UInt8(ascii: "\\"):
                try parseEscape()
            case 0..<0x20:
                throw error(.controlCharacterInString, "byte 0x\(hex(byte)) must be escaped")
            default:
                scratch.append(byte)
                position += 1
            }
        }
        throw error(.unexpectedEnd, "unterminated string")
    }

    /// Decodes one escape at ``position`` (a backslash) into ``scratch``.
    @inlinable
    package mutating func parseEscape() throws(JSONParseError) {
        guard position + 1 < bytes.count else {
            throw error(.unexpectedEnd, "unterminated escape")
        }
        let escaped = bytes[position + 1]
        position += 2
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
            scratch.append(escaped)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            appendUTF8(of: try parseUnicodeEscape())
        default:
            position -= 2
            throw error(.invalidEscape, "\"\\\" may not be followed by \(describeByte(at: position + 1))")
        }
    }

    /// Decodes the hex digits after `\u`, joining a surrogate pair into one scalar.
    @inlinable
    package mutating func parseUnicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
        let escapeStart = position - 2
        let first = try parseHexQuad()
        switch first {
        case 0xD800...0xDBFF:
            guard bytes.count - position >= 6,
                bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u")
            else {
                throw JSONParseError(
                    kind: .invalidEscape, offset: escapeStart,
                    detail: "high surrogate \\u\(hex(first)) is not followed by a low surrogate")
            }
            position += 2
            let second = try parseHexQuad()
            guard (0xDC00...0xDFFF).contains(second) else {
                throw JSONParseError(
                    kind: .invalidEscape, offset: escapeStart,
                    detail: "high surrogate \\u\(hex(first)) is followed by \\u\(hex(second)), not a low surrogate")
            }
            let value = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
            // A pair always combines to a valid scalar in U+10000...U+10FFFF.
            return Unicode.Scalar(value) ?? "\u{FFFD}"
        case 0xDC00...0xDFFF:
            throw JSONParseError(
                kind: .invalidEscape, offset: escapeStart, detail: "lone low surrogate \\u\(hex(first))")
        default:
            // Every non-surrogate UTF-16 unit is a valid scalar.
            return Unicode.Scalar(first) ?? "\u{FFFD}"
        }
    }

    @inlinable
    package mutating func parseHexQuad() throws(JSONParseError) -> UInt16 {
        guard bytes.count - position >= 4 else {
            throw error(.unexpectedEnd, "\\u needs four hex digits")
        }
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let digit = hexDigitValue(bytes[position]) else {
                throw error(.invalidEscape, "\\u needs four hex digits, found \(describeByte(at: position))")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    @inlinable
    package mutating func appendUTF8(of scalar: Unicode.Scalar) {
        UTF8.encode(scalar) { unit in scratch.append(unit) }
    }

    /// Hands `body` the content once it is checked to be UTF-8.
    @inlinable
    package func withValidated<Result>(
        _ content: UnsafeBufferPointer<UInt8>, offset: Int, _ body: (UTF8Span) -> Result
    ) throws(JSONParseError) -> Result {
        let span: UTF8Span
        do {
            span = try UTF8Span(validating: content.span)
        } catch {
            throw JSONParseError(kind: .invalidUTF8, offset: offset, detail: "string is not valid UTF-8")
        }
        return body(span)
    }

    @inlinable
    package func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
