/// Checks one JSON value in a single pass over its bytes, for the values that
/// requests usually carry, and keeps a fact the check learns on the way: whether
/// any object in the value repeats a member name.
///
/// It decides only what it can decide without converting or decoding anything:
/// ASCII strings (escapes included, but for `\u` escapes of UTF-16 surrogates),
/// numbers without an exponent and of at most 308 integer digits, `true`,
/// `false`, `null`, and arrays and objects within the depth limit. On anything
/// else, valid or not (a byte above 0x7F, a surrogate escape, an exponent,
/// malformed bytes, nesting too deep), it answers nil, and the caller checks the
/// value with ``JSONParser``, which decides with its errors. So where it answers,
/// the parser accepts the same value; it never accepts what the parser rejects.
///
/// The fact serves ``JSONQuickComparison``: two values whose objects repeat no
/// name differ as soon as one member differs, without a search of the rest of
/// both objects. Names are told apart by their bytes, which tells them apart as text
/// only for ASCII without escapes: an object with an escaped name counts as one
/// that may repeat a name, and so may an object whose names are alike (see
/// `MemberNames`).
package struct JSONQuickCheck: ~Copyable {
    /// What a check found in a value it decided.
    package struct Outcome {
        /// The offset just past the value.
        package let end: Int
        /// Whether no object in the value repeats a member name.
        package let namesAreUnique: Bool
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private var position: Int
    private var namesAreUnique = true

    private init(bytes: UnsafeBufferPointer<UInt8>, position: Int, maxDepth: Int) {
        self.bytes = bytes
        self.position = position
        self.maxDepth = maxDepth
    }

    /// Checks the value that starts at `start` (its first byte, not whitespace),
    /// inside `depth` arrays or objects already entered, as
    /// ``JSONParser/skipValue()`` would with `maxDepth`.
    ///
    /// - Returns: where the value ends and what was learnt; nil when the check
    ///   cannot decide (the parser then must).
    package static func value(
        in bytes: UnsafeBufferPointer<UInt8>, at start: Int, depth: Int, maxDepth: Int
    ) -> Outcome? {
        var check = JSONQuickCheck(bytes: bytes, position: start, maxDepth: maxDepth)
        // An object, the usual value, is checked without the switch over the first byte.
        let isObject = start < bytes.count && bytes[start] == UInt8(ascii: "{")
        guard isObject ? check.checkObject(depth: depth + 1) : check.checkValue(depth: depth) else { return nil }
        return Outcome(end: check.position, namesAreUnique: check.namesAreUnique)
    }

    /// Checks that `bytes` are exactly one value with optional whitespace around
    /// it, as ``JSONParser/validate(_:maxDepth:)`` does.
    ///
    /// - Returns: where the value is, without the whitespace, and whether its
    ///   objects repeat no name; nil when the check cannot decide.
    package static func text(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) -> (
        range: Range<Int>, namesAreUnique: Bool
    )? {
        var check = JSONQuickCheck(bytes: bytes, position: 0, maxDepth: maxDepth)
        check.skipWhitespace()
        let start = check.position
        guard check.checkValue(depth: 0) else { return nil }
        let end = check.position
        check.skipWhitespace()
        guard check.position == bytes.count else { return nil }
        return (start..<end, check.namesAreUnique)
    }

    private mutating func checkValue(depth: Int) -> Bool {
        guard position < bytes.count else { return false }
        switch bytes[position] {
        case UInt8(ascii: "{"): return checkObject(depth: depth + 1)
        case UInt8(ascii: "["): return checkArray(depth: depth + 1)
        case UInt8(ascii: "\""): return checkString() != nil
        case UInt8(ascii: "t"): return checkLiteral("true")
        case UInt8(ascii: "f"): return checkLiteral("false")
        case UInt8(ascii: "n"): return checkLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return checkNumber()
        default: return false
        }
    }

    // The members are read at a local offset (`index`), not at ``position``,
    // which is set only around the calls that read on from it: kept in a
    // register, the offset spares a store and a load at every step.
    private mutating func checkObject(depth: Int) -> Bool {
        guard depth <= maxDepth else { return false }
        let count = bytes.count
        var index = JSONBytes.endOfWhitespace(in: bytes, from: position + 1)
        guard index < count else { return false }
        if bytes[index] == UInt8(ascii: "}") {
            position = index + 1
            return true
        }
        var names = MemberNames()
        while true {
            guard index < count, bytes[index] == UInt8(ascii: "\""), let nameEnd = endOfName(at: index, into: &names)
            else {
                return false
            }
            index = JSONBytes.endOfWhitespace(in: bytes, from: nameEnd)
            guard index < count, bytes[index] == UInt8(ascii: ":") else { return false }
            index = JSONBytes.endOfWhitespace(in: bytes, from: index + 1)
            guard index < count else { return false }
            // The usual values, a number or a string, are checked here; the others by a call.
            let first = bytes[index]
            if first &- UInt8(ascii: "0") < 10 || first == UInt8(ascii: "-") {
                guard let end = endOfNumber(at: index) else { return false }
                index = end
            } else if first == UInt8(ascii: "\"") {
                guard let (end, _) = endOfString(at: index) else { return false }
                index = end
            } else {
                position = index
                guard checkValue(depth: depth) else { return false }
                index = position
            }
            index = JSONBytes.endOfWhitespace(in: bytes, from: index)
            guard index < count else { return false }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "}") {
                position = index
                return true
            }
            guard byte == UInt8(ascii: ",") else { return false }
            index = JSONBytes.endOfWhitespace(in: bytes, from: index)
        }
    }

    /// The offset past the member name at `index` (its opening quote), which
    /// is added to `names`; nil when the name is undecided.
    ///
    /// A name of one to seven plain ASCII bytes (what objects usually have) is
    /// found with one test of the eight bytes after its opening quote: the
    /// lowest special byte among them (``JSONParser/specialBytes(in:)``, exact
    /// up to that byte) is its closing quote, and its length and its first and
    /// last bytes for the summary are in the same word. Any other name is
    /// checked as a string.
    @inline(__always)
    private mutating func endOfName(at index: Int, into names: inout MemberNames) -> Int? {
        if let base = bytes.baseAddress, bytes.count - index > 8 {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index + 1).loadUnaligned(as: UInt64.self))
            let length = JSONParser.specialBytes(in: word).trailingZeroBitCount / 8
            if length > 0, length < 8, UInt8(truncatingIfNeeded: word >> (length * 8)) == UInt8(ascii: "\"") {
                if namesAreUnique {
                    namesAreUnique = names.addIfNew(
                        count: length, first: UInt8(truncatingIfNeeded: word),
                        last: UInt8(truncatingIfNeeded: word >> ((length - 1) * 8)))
                }
                return index + length + 2
            }
        }
        guard let (end, hasEscapes) = endOfString(at: index) else { return nil }
        if namesAreUnique {
            namesAreUnique = !hasEscapes && names.addIfNew(index + 1..<end - 1, in: bytes)
        }
        return end
    }

    private mutating func checkArray(depth: Int) -> Bool {
        guard depth <= maxDepth else { return false }
        position += 1
        skipWhitespace()
        guard position < bytes.count else { return false }
        if bytes[position] == UInt8(ascii: "]") {
            position += 1
            return true
        }
        while true {
            guard checkValue(depth: depth) else { return false }
            guard let closed = endOfItem(closedBy: UInt8(ascii: "]")) else { return false }
            if closed { return true }
        }
    }

    /// After an element or member: true past the closing byte, false past a
    /// comma (and the whitespace after it), nil on anything else.
    @inline(__always)
    private mutating func endOfItem(closedBy closing: UInt8) -> Bool? {
        skipWhitespace()
        guard position < bytes.count else { return nil }
        let byte = bytes[position]
        position += 1
        if byte == closing { return true }
        guard byte == UInt8(ascii: ",") else { return nil }
        skipWhitespace()
        return false
    }

    /// Moves past the string at its opening quote. Returns whether it has
    /// escapes; nil when it is undecided (a control or non-ASCII byte, a
    /// surrogate or malformed escape, no closing quote).
    @inline(__always)
    private mutating func checkString() -> Bool? {
        guard let (end, hasEscapes) = endOfString(at: position) else { return nil }
        position = end
        return hasEscapes
    }

    /// The offset past the string at `start` (its opening quote) and whether it
    /// has escapes, as ``checkString()`` checks it; nil when it is undecided.
    @inline(__always)
    private func endOfString(at start: Int) -> (end: Int, hasEscapes: Bool)? {
        var index = start + 1
        var hasEscapes = false
        while true {
            index = JSONParser.endOfPlainASCII(in: bytes, from: index)
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                return (index + 1, hasEscapes)
            case UInt8(ascii: "\\"):
                guard let next = endOfEscape(at: index) else { return nil }
                hasEscapes = true
                index = next
            case 0x20..<0x80:
                // A plain byte among the last seven, which the word scan leaves to this loop.
                index += 1
            default:
                return nil
            }
        }
    }

    /// The offset past the escape at `index` (a backslash); nil for an escape
    /// the parser rejects, and for a `\u` escape of a surrogate (left to the parser).
    private func endOfEscape(at index: Int) -> Int? {
        guard index + 1 < bytes.count else { return nil }
        switch bytes[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return index + 2
        case UInt8(ascii: "u"):
            guard bytes.count - index >= 6 else { return nil }
            var unit: UInt32 = 0
            for offset in 2..<6 {
                guard let digit = Self.hexDigitValue(bytes[index + offset]) else { return nil }
                unit = unit << 4 | UInt32(digit)
            }
            return (0xD800...0xDFFF).contains(unit) ? nil : index + 6
        default:
            return nil
        }
    }

    private static func hexDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `-? (0 | [1-9][0-9]*) (.[0-9]+)?`: the numbers ``JSONParser/checkRange(of:)``
    /// accepts without converting them (at most 308 integer digits, no exponent).
    private mutating func checkNumber() -> Bool {
        guard let end = endOfNumber(at: position) else { return false }
        position = end
        return true
    }

    /// The offset past the number at `start`, as ``checkNumber()`` checks it; nil when it is undecided.
    @inline(__always)
    private func endOfNumber(at start: Int) -> Int? {
        var index = start
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        index = endOfDigits(from: index)
        let integerDigits = index - integerStart
        guard integerDigits > 0, integerDigits <= JSONParser.digitsOfAlwaysFiniteNumbers else { return nil }
        // A leading zero is allowed alone only.
        guard bytes[integerStart] != UInt8(ascii: "0") || integerDigits == 1 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            let fractionStart = index + 1
            index = endOfDigits(from: fractionStart)
            guard index > fractionStart else { return nil }
        }
        // An exponent may put the number out of range: the parser converts it.
        guard index == bytes.count || bytes[index] | 0x20 != UInt8(ascii: "e") else { return nil }
        return index
    }

    @inline(__always)
    private func endOfDigits(from start: Int) -> Int {
        var index = start
        // Eight bytes at a time (a time in nanoseconds has 19 digits). A byte
        // below "0" borrows when 0x30 is taken from it, one above "9" reaches its
        // high bit when 0x46 is added; digits below the first such byte neither
        // borrow nor carry, so that byte is found exactly.
        if let base = bytes.baseAddress {
            while bytes.count - index >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let others =
                    ((word &- 0x3030_3030_3030_3030) | (word &+ 0x4646_4646_4646_4646)) & 0x8080_8080_8080_8080
                if others != 0 {
                    return index + others.trailingZeroBitCount / 8
                }
                index += 8
            }
        }
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
            index += 1
        }
        return index
    }

    private mutating func checkLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count else { return false }
        for offset in 0..<count where bytes[position + offset] != literal.utf8Start[offset] {
            return false
        }
        position += count
        return true
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        position = JSONBytes.endOfWhitespace(in: bytes, from: position)
    }
}

extension JSONQuickCheck {
    /// A summary of the names of one object's members, to tell that no name
    /// repeats without comparing names: each name sets one of 64 bits, chosen by
    /// its length and its first and last bytes. Two names that set the same bit
    /// count as a repeat, whether they are one name or not: the summary may say
    /// that a name may repeat when none does (then the comparison searches, as for
    /// any value), never that none repeats when one does.
    private struct MemberNames {
        private var seen: UInt64 = 0

        /// Adds a name (not empty: an empty one counts as a repeat); false when it
        /// may repeat one before it.
        @inline(__always)
        mutating func addIfNew(_ name: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            guard let last = name.last else { return false }
            return addIfNew(count: name.count, first: bytes[name.lowerBound], last: bytes[last])
        }

        /// Adds a name of `count` bytes (at least one) that starts with `first` and ends with `last`.
        @inline(__always)
        mutating func addIfNew(count: Int, first: UInt8, last: UInt8) -> Bool {
            let bit = UInt64(1) << ((UInt64(count) &* 31 &+ UInt64(first) &* 7 &+ UInt64(last)) & 63)
            defer { seen |= bit }
            return seen & bit == 0
        }
    }
}
