// Numbers: their grammar, and their value or only their range, for every ``JSONValueMaker``.
extension JSONParser {
    /// Where a number's parts are, once ``scanNumber()`` has checked its grammar.
    @usableFromInline
    package struct NumberText {
        /// The offset of its first byte (a minus or a digit).
        @usableFromInline package let start: Int
        /// Its digits before any fraction or exponent.
        @usableFromInline package let integerDigits: Range<Int>
        @usableFromInline package let isNegative: Bool
        /// Whether it has neither a fraction nor an exponent.
        @usableFromInline package let isInteger: Bool
        /// Whether it has an exponent (only then can its digits say less than its size).
        @usableFromInline package let hasExponent: Bool

        @inlinable
        package init(start: Int, integerDigits: Range<Int>, isNegative: Bool, isInteger: Bool, hasExponent: Bool) {
            self.start = start
            self.integerDigits = integerDigits
            self.isNegative = isNegative
            self.isInteger = isInteger
            self.hasExponent = hasExponent
        }
    }

    /// Scans `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?` and moves past it.
    @inline(__always)
    @inlinable
    package mutating func scanNumber() throws(JSONParseError) -> NumberText {
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
        var hasExponent = false
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            isInteger = false
            guard skipDigits().count > 0 else { throw errorAtCurrentByte("expected a digit after \".\"") }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            isInteger = false
            hasExponent = true
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard skipDigits().count > 0 else { throw errorAtCurrentByte("expected a digit in the exponent") }
        }
        return NumberText(
            start: start, integerDigits: integerDigits, isNegative: isNegative, isInteger: isInteger,
            hasExponent: hasExponent)
    }

    /// The value of the number just scanned: integers in Int64 range stay exact;
    /// everything else becomes a finite Double.
    @inline(__always)
    @inlinable
    package func numberValue(of number: NumberText) throws(JSONParseError) -> JSONValue {
        if number.isInteger, let integer = exactInteger(digits: number.integerDigits, isNegative: number.isNegative) {
            return .integer(integer)
        }
        return .double(try doubleValue(from: number.start))
    }

    /// Throws what ``numberValue(of:)`` throws for the number just scanned,
    /// converting it only when its size is in doubt.
    @inline(__always)
    @inlinable
    package func checkRange(of number: NumberText) throws(JSONParseError) {
        // Without an exponent, a number of at most 308 integer digits is below
        // 10^308, so it is a finite double: no text to convert, nothing allocated.
        // Longer ones, and any with an exponent, take the parser's own path.
        if !number.hasExponent, number.integerDigits.count <= Self.digitsOfAlwaysFiniteNumbers {
            return
        }
        _ = try numberValue(of: number)
    }

    /// The integer written at `start` in `bytes` as `-?(0|[1-9][0-9]*)` with at
    /// most 18 digits (so it is an exact `Int64`), and the offset past it; nil
    /// when the bytes there are anything else, such as a longer integer or one
    /// followed by a fraction or an exponent. For readers that decide the usual
    /// numbers without the parser (a request's `id`, a counter compared in place).
    @inlinable
    package static func plainInteger(in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> (value: Int64, end: Int)? {
        var index = start
        let isNegative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        let digitsStart = index
        var magnitude: Int64 = 0
        // At most 18 digits, which always fit: one bound for both tests.
        let digitsEnd = Swift.min(bytes.count, digitsStart &+ 18)
        while index < digitsEnd, bytes[index] &- UInt8(ascii: "0") < 10 {
            magnitude = magnitude &* 10 &+ Int64(bytes[index] &- UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - digitsStart
        guard digits > 0, bytes[digitsStart] != UInt8(ascii: "0") || digits == 1 else { return nil }
        // What follows ends the number: not a digit (a 19th, or one after a leading zero), `.`, `e` or `E`.
        if index < bytes.count {
            let next = bytes[index]
            guard next &- UInt8(ascii: "0") >= 10, next != UInt8(ascii: "."), next | 0x20 != UInt8(ascii: "e") else {
                return nil
            }
        }
        return (isNegative ? -magnitude : magnitude, index)
    }

    /// Integer digits that, without an exponent, always make a finite double.
    @usableFromInline
    package static let digitsOfAlwaysFiniteNumbers = 308

    @inlinable
    package mutating func skipDigits() -> Range<Int> {
        let start = position
        while position < bytes.count, isDigit(bytes[position]) {
            position += 1
        }
        return start..<position
    }

    /// The Int64 spelled by `digits`, or nil when it is out of range.
    @inlinable
    package func exactInteger(digits: Range<Int>, isNegative: Bool) -> Int64? {
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

    /// The number from `start` to ``position`` as a finite Double.
    @inlinable
    package func doubleValue(from start: Int) throws(JSONParseError) -> Double {
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
}
