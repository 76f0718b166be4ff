/// A strict RFC 8259 parser over contiguous bytes.
///
/// Internal: ``JSONValue/parse(_:maxDepth:)`` is the public entry. It works on raw
/// bytes (no Foundation) because the server parses every frame with it. Recursion
/// depth is bounded by `maxDepth`, so hostile nesting throws instead of
/// overflowing the stack.
struct JSONParser: ~Copyable {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private var position = 0
    private var depth = 0
    /// Reused for strings that contain escapes, so each such string allocates once.
    private var scratch: [UInt8] = []

    private init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// Parses exactly one value, with optional whitespace around it.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        try parser.expectEnd()
        return value
    }

    /// Parses exactly one value as ``parse(_:maxDepth:)`` does, except that a
    /// top-level object is never built: its members go to `collector` instead.
    ///
    /// - Returns: nil when the value was an object, else the value.
    static func parseMembers<Collector: JSONMemberCollector>(
        of bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, into collector: inout Collector
    ) throws(JSONParseError) -> JSONValue? {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        guard parser.position < bytes.count, bytes[parser.position] == UInt8(ascii: "{") else {
            let value = try parser.parseValue()
            try parser.expectEnd()
            return value
        }
        try parser.parseMembers(into: &collector)
        try parser.expectEnd()
        return nil
    }

    /// Whitespace may follow the value; anything else is an error.
    private mutating func expectEnd() throws(JSONParseError) {
        skipWhitespace()
        guard position == bytes.count else {
            throw error(.trailingBytes, "found \(describeByte(at: position)) after a complete value")
        }
    }

    // MARK: Values

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard position < bytes.count else {
            throw error(.unexpectedEnd, "expected a value")
        }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            return try parseObject()
        case UInt8(ascii: "["):
            return try parseArray()
        case UInt8(ascii: "\""):
            return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        default:
            throw error(.unexpectedByte, "expected a value, found \(describeByte(at: position))")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        guard bytes.count - position >= count, bytes[position..<position + count].elementsEqual(expected) else {
            throw error(.unexpectedByte, "expected \"\(literal)\"")
        }
        position += count
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        guard depth <= maxDepth else {
            throw error(.nestingTooDeep, "arrays and objects may nest at most \(maxDepth) deep")
        }
        position += 1
        skipWhitespace()
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        if try consumeIfPresent(UInt8(ascii: "]")) {
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            if try consumeIfPresent(UInt8(ascii: "]")) {
                return .array(elements)
            }
            try expect(UInt8(ascii: ","), "expected \",\" or \"]\" in an array")
            skipWhitespace()
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        var builder = JSONObjectBuilder()
        try parseMembers(into: &builder)
        return .object(builder.object)
    }

    /// Parses an object at its opening brace into `collector`, member by member.
    private mutating func parseMembers<Collector: JSONMemberCollector>(
        into collector: inout Collector
    ) throws(JSONParseError) {
        try enterContainer()
        defer { depth -= 1 }
        if try consumeIfPresent(UInt8(ascii: "}")) {
            return
        }
        while true {
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                throw errorAtCurrentByte("expected a string key in an object")
            }
            let name = try withStringContent(Collector.name)
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "expected \":\" after an object key")
            skipWhitespace()
            collector.add(try parseValue(), named: name)
            skipWhitespace()
            if try consumeIfPresent(UInt8(ascii: "}")) {
                return
            }
            try expect(UInt8(ascii: ","), "expected \",\" or \"}\" in an object")
            skipWhitespace()
        }
    }

    // MARK: Strings

    private mutating func parseString() throws(JSONParseError) -> String {
        try withStringContent { String(copying: $0) }
    }

    /// Parses a string starting at its opening quote and hands `body` its content,
    /// unescaped and checked to be UTF-8. The content is the input's own bytes when
    /// the string has no escapes (unescaped runs are never copied), else the
    /// decoded ``scratch``; either way it lives only during the call.
    private mutating func withStringContent<Result>(_ body: (UTF8Span) -> Result) throws(JSONParseError) -> Result {
        let start = position + 1
        var index = start
        var isASCII = true
        while true {
            index = endOfPlainASCII(from: index)
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                position = index + 1
                let content = UnsafeBufferPointer(rebasing: bytes[start..<index])
                if isASCII {
                    return body(UTF8Span(unchecked: content.span, isKnownASCII: true))
                }
                return try withValidated(content, offset: start, body)
            }
            if byte == UInt8(ascii: "\\") {
                scratch.removeAll(keepingCapacity: true)
                scratch.append(contentsOf: bytes[start..<index])
                position = index
                try parseEscapedString()
                return try scratch.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> Result in
                    try withValidated(buffer, offset: start, body)
                }
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
    /// at: a quote, a backslash, a control character or a non-ASCII byte (or the
    /// end). It tests eight bytes at a time, since most string bytes are plain.
    private func endOfPlainASCII(from index: Int) -> Int {
        guard let base = bytes.baseAddress else { return index }
        var index = index
        while bytes.count - index >= 8 {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            if Self.mayHoldSpecialByte(word) { return index }
            index += 8
        }
        return index
    }

    /// Whether any byte of `word` is a quote, a backslash, below 0x20 or above
    /// 0x7F. Never false when one is; it may be true when none is, which only
    /// sends the scan to its byte-by-byte path.
    private static func mayHoldSpecialByte(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        // A byte of `value` is zero, or `value` has a byte below the limit
        // (limit ≤ 0x80), when subtracting the limit from each byte borrows
        // into a byte whose own high bit was clear.
        func hasByteBelow(_ limit: UInt64, in value: UInt64) -> Bool {
            (value &- ones &* limit) & ~value & highBits != 0
        }
        return hasByteBelow(1, in: word ^ (ones &* UInt64(UInt8(ascii: "\""))))
            || hasByteBelow(1, in: word ^ (ones &* UInt64(UInt8(ascii: "\\"))))
            || hasByteBelow(0x20, in: word)
            || word & highBits != 0
    }

    /// Continues a string from its first backslash to its closing quote, decoding into ``scratch``.
    private mutating func parseEscapedString() throws(JSONParseError) {
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
    private mutating func parseEscape() throws(JSONParseError) {
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
    private mutating func parseUnicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
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

    private mutating func parseHexQuad() throws(JSONParseError) -> UInt16 {
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

    private mutating func appendUTF8(of scalar: Unicode.Scalar) {
        UTF8.encode(scalar) { unit in scratch.append(unit) }
    }

    /// Hands `body` the content once it is checked to be UTF-8.
    private func withValidated<Result>(
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

    // MARK: Numbers

    /// Parses `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`. Integers in Int64
    /// range stay exact; everything else becomes a finite Double.
    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        let isNegative = bytes[position] == UInt8(ascii: "-")
        if isNegative { position += 1 }
        guard position < bytes.count, isDigit(bytes[position]) else {
            throw errorAtCurrentByte("expected a digit in a number")
        }
        if bytes[position] == UInt8(ascii: "0"), position + 1 < bytes.count, isDigit(bytes[position + 1]) {
            throw error(.invalidNumber, "leading zeros are not allowed")
        }
        let integerDigits = skipDigits()
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            isInteger = false
            guard skipDigits().count > 0 else { throw errorAtCurrentByte("expected a digit after \".\"") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            isInteger = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard skipDigits().count > 0 else { throw errorAtCurrentByte("expected a digit in the exponent") }
        }
        if isInteger, let integer = exactInteger(digits: integerDigits, isNegative: isNegative) {
            return .integer(integer)
        }
        return .double(try doubleValue(from: start))
    }

    private mutating func skipDigits() -> Range<Int> {
        let start = position
        while position < bytes.count, isDigit(bytes[position]) {
            position += 1
        }
        return start..<position
    }

    /// The Int64 spelled by `digits`, or nil when it is out of range.
    private func exactInteger(digits: Range<Int>, isNegative: Bool) -> Int64? {
        // Up to 18 digits always fit: no overflow checks needed.
        if digits.count <= 18 {
            var value: Int64 = 0
            for index in digits {
                value = value &* 10 &+ Int64(bytes[index] &- UInt8(ascii: "0"))
            }
            return isNegative ? -value : value
        }
        // Accumulate negatively: Int64.min has no positive counterpart.
        var value: Int64 = 0
        for index in digits {
            let (shifted, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowB) = shifted.subtractingReportingOverflow(Int64(bytes[index] &- UInt8(ascii: "0")))
            if overflowA || overflowB { return nil }
            value = next
        }
        if isNegative { return value }
        let (positive, overflow) = Int64(0).subtractingReportingOverflow(value)
        return overflow ? nil : positive
    }

    private func doubleValue(from start: Int) throws(JSONParseError) -> Double {
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let double = Double(text) else {
            throw JSONParseError(
                kind: .invalidNumber, offset: start, detail: "cannot read \(abbreviated(text)) as a number")
        }
        guard double.isFinite else {
            throw JSONParseError(
                kind: .numberOutOfRange, offset: start,
                detail: "\(abbreviated(text)) is beyond the range of a 64-bit floating-point number (about ±1.8e308)"
            )
        }
        return double
    }

    // MARK: Helpers

    @inline(__always)
    private mutating func skipWhitespace() {
        // Compact JSON, what clients send, has no whitespace: one test and out.
        guard position < bytes.count, bytes[position] <= UInt8(ascii: " ") else { return }
        skipWhitespaceRun()
    }

    private mutating func skipWhitespaceRun() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                position += 1
            default:
                return
            }
        }
    }

    private mutating func consumeIfPresent(_ byte: UInt8) throws(JSONParseError) -> Bool {
        guard position < bytes.count else {
            throw error(.unexpectedEnd, "unterminated array or object")
        }
        guard bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func expect(_ byte: UInt8, _ message: String) throws(JSONParseError) {
        guard position < bytes.count, bytes[position] == byte else {
            throw errorAtCurrentByte(message)
        }
        position += 1
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private func error(_ kind: JSONParseError.Kind, _ detail: String) -> JSONParseError {
        JSONParseError(kind: kind, offset: position, detail: detail)
    }

    /// An unexpected-end error at the end of input, else an unexpected-byte error naming the byte.
    private func errorAtCurrentByte(_ message: String) -> JSONParseError {
        guard position < bytes.count else {
            return error(.unexpectedEnd, message)
        }
        return error(.unexpectedByte, "\(message), found \(describeByte(at: position))")
    }

    private func describeByte(at index: Int) -> String {
        guard index < bytes.count else { return "the end of input" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F {
            return "\"\(Character(Unicode.Scalar(byte)))\""
        }
        return "byte 0x\(hex(byte))"
    }

    private func hex(_ value: some FixedWidthInteger) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        let width = MemoryLayout.size(ofValue: value) * 2
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private func abbreviated(_ text: String) -> String {
        text.utf8.count <= 40 ? text : "\(text.prefix(20))… (\(text.utf8.count) characters)"
    }
}
