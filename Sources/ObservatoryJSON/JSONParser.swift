/// A strict RFC 8259 parser over contiguous bytes.
///
/// Internal: `JSONValue.parse(_:maxDepth:)` and ``EncodedJSON/init(validating:maxDepth:)``
/// are the public entries. It works on raw bytes (no Foundation) because the
/// server parses every frame with it. Recursion depth is bounded by `maxDepth`,
/// so hostile nesting throws instead of overflowing the stack.
///
/// The grammar is written once, generic over a ``JSONValueMaker`` that decides
/// what a value becomes: a ``JSONValue`` tree (``JSONTreeMaker``) or nothing at
/// all (``JSONValidationMaker``). So validating without building a tree accepts
/// and rejects exactly what parsing does, with the same errors at the same
/// offsets. Strings are in `JSONParser+Strings.swift`, numbers in
/// `JSONParser+Numbers.swift`.
@usableFromInline
package struct JSONParser: ~Copyable {
    @usableFromInline
    package let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline
    package let maxDepth: Int
    /// The offset of the next byte to read.
    @usableFromInline
    package var position = 0
    @usableFromInline
    package var depth = 0
    /// Reused for strings that contain escapes, so each such string allocates once.
    @usableFromInline
    package var scratch: [UInt8] = []

    @inlinable
    package init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// Parses exactly one value, with optional whitespace around it.
    @inlinable
    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(JSONParseError) -> JSONValue {
        try read(bytes, maxDepth: maxDepth, as: JSONTreeMaker.self).value
    }

    /// Checks that `bytes` are exactly one value, with optional whitespace around
    /// it, as ``parse(_:maxDepth:)`` would, without building anything.
    ///
    /// - Returns: Where the value is in `bytes`, without the whitespace around it.
    /// - Throws: The error ``parse(_:maxDepth:)`` throws for the same bytes.
    @inlinable
    package static func validate(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(JSONParseError) -> Range<
        Int
    > {
        try read(bytes, maxDepth: maxDepth, as: JSONValidationMaker.self).range
    }

    /// Reads exactly one value into what `Maker` makes of it.
    @inlinable
    package static func read<Maker: JSONValueMaker>(
        _ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, as maker: Maker.Type
    ) throws(JSONParseError) -> (value: Maker.Value, range: Range<Int>) {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        let start = parser.position
        let value = try parser.parseValue(Maker.self)
        let end = parser.position
        try parser.expectEnd()
        return (value, start..<end)
    }

    /// Parses exactly one value as ``parse(_:maxDepth:)`` does, except that a
    /// top-level object is never built: its members go to `collector` instead.
    ///
    /// - Returns: nil when the value was an object, else the value.
    @inlinable
    package static func parseMembers<Collector: JSONMemberCollector>(
        of bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, into collector: inout Collector
    ) throws(JSONParseError) -> JSONValue? {
        var parser = JSONParser(bytes: bytes, maxDepth: maxDepth)
        parser.skipWhitespace()
        guard parser.position < bytes.count, bytes[parser.position] == UInt8(ascii: "{") else {
            let value = try parser.parseValue(JSONTreeMaker.self)
            try parser.expectEnd()
            return value
        }
        try parser.parseMembers(into: &collector)
        try parser.expectEnd()
        return nil
    }

    /// Whitespace may follow the value; anything else is an error.
    @inlinable
    package mutating func expectEnd() throws(JSONParseError) {
        skipWhitespace()
        guard position == bytes.count else {
            throw error(.trailingBytes, "found \(describeByte(at: position)) after a complete value")
        }
    }

    // MARK: Values

    /// Reads the value at ``position`` into what `Maker` makes of it.
    @inlinable
    package mutating func parseValue<Maker: JSONValueMaker>(_ maker: Maker.Type) throws(JSONParseError) -> Maker.Value {
        guard position < bytes.count else {
            throw error(.unexpectedEnd, "expected a value")
        }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            var members = Maker.makeMembers()
            try parseMembers(into: &members)
            return Maker.object(members)
        case UInt8(ascii: "["):
            return try parseArray(Maker.self)
        case UInt8(ascii: "\""):
            return try Maker.string(from: &self)
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return Maker.bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return Maker.bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return Maker.null()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let number = try scanNumber()
            return try Maker.number(number, in: self)
        default:
            throw error(.unexpectedByte, "expected a value, found \(describeByte(at: position))")
        }
    }

    /// Checks the value at ``position`` and moves past it, building nothing.
    @inlinable
    package mutating func skipValue() throws(JSONParseError) {
        try parseValue(JSONValidationMaker.self)
    }

    @inlinable
    package mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        guard bytes.count - position >= count, bytes[position..<position + count].elementsEqual(expected) else {
            throw error(.unexpectedByte, "expected \"\(literal)\"")
        }
        position += count
    }

    @inlinable
    package mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        guard depth <= maxDepth else {
            throw error(.nestingTooDeep, "arrays and objects may nest at most \(maxDepth) deep")
        }
        position += 1
        skipWhitespace()
    }

    @inlinable
    package mutating func parseArray<Maker: JSONValueMaker>(_ maker: Maker.Type) throws(JSONParseError)
        -> Maker.Value
    {
        try enterContainer()
        defer { depth -= 1 }
        var elements = Maker.makeElements()
        if try consumeIfPresent(UInt8(ascii: "]")) {
            return Maker.array(elements)
        }
        while true {
            Maker.append(try parseValue(Maker.self), to: &elements)
            skipWhitespace()
            if try consumeIfPresent(UInt8(ascii: "]")) {
                return Maker.array(elements)
            }
            try expect(UInt8(ascii: ","), "expected \",\" or \"]\" in an array")
            skipWhitespace()
        }
    }

    /// Parses an object at its opening brace into `collector`, member by member.
    @inlinable
    package mutating func parseMembers<Collector: JSONMemberCollector>(
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
            let name = try Collector.readName(from: &self)
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "expected \":\" after an object key")
            skipWhitespace()
            try collector.readValue(named: name, from: &self)
            skipWhitespace()
            if try consumeIfPresent(UInt8(ascii: "}")) {
                return
            }
            try expect(UInt8(ascii: ","), "expected \",\" or \"}\" in an object")
            skipWhitespace()
        }
    }

    // MARK: Helpers

    @inline(__always)
    @inlinable
    package mutating func skipWhitespace() {
        position = JSONBytes.endOfWhitespace(in: bytes, from: position)
    }

    @inlinable
    package mutating func consumeIfPresent(_ byte: UInt8) throws(JSONParseError) -> Bool {
        guard position < bytes.count else {
            throw error(.unexpectedEnd, "unterminated array or object")
        }
        guard bytes[position] == byte else { return false }
        position += 1
        return true
    }

    @inlinable
    package mutating func expect(_ byte: UInt8, _ message: String) throws(JSONParseError) {
        guard position < bytes.count, bytes[position] == byte else {
            throw errorAtCurrentByte(message)
        }
        position += 1
    }

    @inlinable
    package func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    @inlinable
    package func error(_ kind: JSONParseError.Kind, _ detail: String) -> JSONParseError {
        JSONParseError(kind: kind, offset: position, detail: detail)
    }

    /// An unexpected-end error at the end of input, else an unexpected-byte error naming the byte.
    @inlinable
    package func errorAtCurrentByte(_ message: String) -> JSONParseError {
        guard position < bytes.count else {
            return error(.unexpectedEnd, message)
        }
        return error(.unexpectedByte, "\(message), found \(describeByte(at: position))")
    }

    @inlinable
    package func describeByte(at index: Int) -> String {
        guard index < bytes.count else { return "the end of input" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F {
            return "\"\(Character(Unicode.Scalar(byte)))\""
        }
        return "byte 0x\(hex(byte))"
    }

    @inlinable
    package func hex(_ value: some FixedWidthInteger) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        let width = MemoryLayout.size(ofValue: value) * 2
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    @inlinable
    package func abbreviated(_ text: String) -> String {
        text.utf8.count <= 40 ? text : "\(text.prefix(20))… (\(text.utf8.count) characters)"
    }
}
