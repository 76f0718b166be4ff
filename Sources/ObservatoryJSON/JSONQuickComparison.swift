#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Compares two validated JSON texts in one pass over both, building nothing,
/// where the answer is clear from the bytes: for ``EncodedJSON``'s equality,
/// so that a store that compares each new value with the current one (an equal
/// set changes nothing) does not decode both.
///
/// It walks both values in step and stops at the first difference. Arrays,
/// numbers, literals and ASCII strings without escapes decide on their own.
/// Objects decide when both list the same names in the same order; a member
/// whose values differ decides only if neither object repeats its name later
/// (a repeated name keeps its last value): at once when both values were checked
/// to repeat no name anywhere (``EncodedJSON/namesAreUnique``), else after a
/// search of the rest of both objects. Anything else, such as members in
/// another order, escapes, or non-ASCII strings with different bytes (Unicode
/// may call them equal), is left ``Verdict/undecided`` for the trees to decide.
package struct JSONQuickComparison: ~Copyable {
    /// What the bytes say about the two values.
    package enum Verdict {
        case equal, unequal, undecided
    }

    private var left: JSONParser
    private var right: JSONParser
    /// Whether neither value repeats a name in any of its objects.
    private let namesAreUnique: Bool

    private init(left: UnsafeBufferPointer<UInt8>, right: UnsafeBufferPointer<UInt8>, namesAreUnique: Bool) {
        // The texts were validated, with some depth limit: nothing to limit again.
        self.left = JSONParser(bytes: left, maxDepth: .max)
        self.right = JSONParser(bytes: right, maxDepth: .max)
        self.namesAreUnique = namesAreUnique
    }

    /// Compares two texts that each hold exactly one valid value; `namesAreUnique`
    /// when neither repeats a name in any of its objects (false when not known).
    package static func compare(
        _ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>, namesAreUnique: Bool = false
    ) -> Verdict {
        var comparison = JSONQuickComparison(left: left, right: right, namesAreUnique: namesAreUnique)
        do {
            return try comparison.compareValues()
        } catch {
            // Validated texts do not throw; if they did, the trees decide.
            return .undecided
        }
    }

    private mutating func compareValues() throws(JSONParseError) -> Verdict {
        left.skipWhitespace()
        right.skipWhitespace()
        guard left.position < left.bytes.count, right.position < right.bytes.count else { return .undecided }
        let leftKind = Kind(left.bytes[left.position])
        guard leftKind == Kind(right.bytes[right.position]) else { return .unequal }
        switch leftKind {
        case .object: return try compareObjects()
        case .array: return try compareArrays()
        case .string: return try compareStrings()
        case .number: return try compareNumbers()
        case .literal: return compareLiterals()
        }
    }

    /// The kind of value a first byte starts.
    private enum Kind {
        case object, array, string, number, literal

        init(_ firstByte: UInt8) {
            switch firstByte {
            case UInt8(ascii: "{"): self = .object
            case UInt8(ascii: "["): self = .array
            case UInt8(ascii: "\""): self = .string
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"): self = .literal
            default: self = .number
            }
        }
    }

    /// `true`, `false` and `null` differ in their first byte and have one spelling each.
    private mutating func compareLiterals() -> Verdict {
        let byte = left.bytes[left.position]
        guard byte == right.bytes[right.position] else { return .unequal }
        let length = byte == UInt8(ascii: "f") ? 5 : 4
        left.position += length
        right.position += length
        return .equal
    }

    private mutating func compareNumbers() throws(JSONParseError) -> Verdict {
        // Two integers of up to 18 digits (a counter, a time) are exact, and the
        // texts were checked: no leading zeros, so one value has one text, but for 0 and -0.
        if let leftEnd = Self.endOfShortInteger(in: left.bytes, from: left.position),
            let rightEnd = Self.endOfShortInteger(in: right.bytes, from: right.position)
        {
            let leftText = UnsafeBufferPointer(rebasing: left.bytes[left.position..<leftEnd])
            let rightText = UnsafeBufferPointer(rebasing: right.bytes[right.position..<rightEnd])
            left.position = leftEnd
            right.position = rightEnd
            let bothZero = Self.isZero(leftText) && Self.isZero(rightText)
            return bothZero || Self.sameBytes(leftText, rightText) ? .equal : .unequal
        }
        let leftNumber = try left.scanNumber()
        let rightNumber = try right.scanNumber()
        if Self.sameBytes(
            UnsafeBufferPointer(rebasing: left.bytes[leftNumber.start..<left.position]),
            UnsafeBufferPointer(rebasing: right.bytes[rightNumber.start..<right.position]))
        {
            return .equal
        }
        let leftValue = try left.numberValue(of: leftNumber)
        let rightValue = try right.numberValue(of: rightNumber)
        return leftValue == rightValue ? .equal : .unequal
    }

    /// The end of the valid number at `start` when it is an integer of at most 18 digits; nil otherwise.
    private static func endOfShortInteger(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digitsStart = index
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
            index += 1
        }
        guard index - digitsStart <= 18 else { return nil }
        if index < bytes.count {
            let next = bytes[index]
            guard next != UInt8(ascii: "."), next | 0x20 != UInt8(ascii: "e") else { return nil }
        }
        return index
    }

    /// Whether a valid integer's text is `0` or `-0`.
    private static func isZero(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        text.last == UInt8(ascii: "0") && (text.count == 1 || text.count == 2 && text[0] == UInt8(ascii: "-"))
    }

    private mutating func compareStrings() throws(JSONParseError) -> Verdict {
        guard case .inPlace(let leftRange, let leftIsASCII) = try left.scanString(),
            case .inPlace(let rightRange, let rightIsASCII) = try right.scanString()
        else {
            return .undecided
        }
        if Self.sameBytes(
            UnsafeBufferPointer(rebasing: left.bytes[leftRange]), UnsafeBufferPointer(rebasing: right.bytes[rightRange])
        ) {
            return .equal
        }
        // Different ASCII is different text; different UTF-8 may still be
        // canonically equivalent, as Swift compares strings.
        return leftIsASCII && rightIsASCII ? .unequal : .undecided
    }

    private mutating func compareArrays() throws(JSONParseError) -> Verdict {
        enterContainers()
        if let end = try endOfContainers(closedBy: UInt8(ascii: "]")) {
            return end
        }
        while true {
            let verdict = try compareValues()
            guard verdict == .equal else { return verdict }
            left.skipWhitespace()
            right.skipWhitespace()
            // One array ending first has fewer elements: unequal.
            if let end = try endOfContainers(closedBy: UInt8(ascii: "]")) {
                return end
            }
            enterContainers()
        }
    }

    private mutating func compareObjects() throws(JSONParseError) -> Verdict {
        enterContainers()
        if let end = try endOfContainers(closedBy: UInt8(ascii: "}")) {
            // One empty object and one with members still differ, duplicates or not.
            return end
        }
        while true {
            // The right name is the left one when the same bytes and a quote follow its
            // opening quote (the left has no escapes, so neither has the right).
            guard case .inPlace(let leftName, isASCII: _) = try left.scanString(),
                right.bytes.count - right.position > leftName.count + 1,
                right.bytes[right.position + 1 + leftName.count] == UInt8(ascii: "\""),
                Self.sameBytes(
                    UnsafeBufferPointer(rebasing: left.bytes[leftName]),
                    UnsafeBufferPointer(
                        rebasing: right.bytes[right.position + 1..<right.position + 1 + leftName.count]))
            else {
                return .undecided
            }
            right.position += leftName.count + 2
            skipColons()
            let leftValueStart = left.position
            let rightValueStart = right.position
            switch try compareValues() {
            case .equal:
                break
            case .undecided:
                return .undecided
            case .unequal:
                // Without repeated names, the member's value is the object's: they differ.
                if namesAreUnique { return .unequal }
                left.position = leftValueStart
                right.position = rightValueStart
                let name = UnsafeBufferPointer(rebasing: left.bytes[leftName])
                if try Self.restOfObject(in: &left, repeats: name) {
                    return .undecided
                }
                return try Self.restOfObject(in: &right, repeats: name) ? .undecided : .unequal
            }
            left.skipWhitespace()
            right.skipWhitespace()
            if let end = try endOfContainers(closedBy: UInt8(ascii: "}")) {
                // Different counts of members may still be the same object, when names repeat.
                return end == .equal || namesAreUnique ? end : .undecided
            }
            enterContainers()
        }
    }

    /// Moves both past the byte that opens a container or separates its items, and the whitespace after it.
    private mutating func enterContainers() {
        left.position += 1
        right.position += 1
        left.skipWhitespace()
        right.skipWhitespace()
    }

    private mutating func skipColons() {
        left.skipWhitespace()
        right.skipWhitespace()
        enterContainers()
    }

    /// `.equal` when both containers end here (moving past their ends),
    /// `.unequal` when only one does, nil when neither does.
    private mutating func endOfContainers(closedBy closing: UInt8) throws(JSONParseError) -> Verdict? {
        let leftEnds = left.bytes[left.position] == closing
        let rightEnds = right.bytes[right.position] == closing
        guard leftEnds || rightEnds else { return nil }
        guard leftEnds && rightEnds else { return .unequal }
        left.position += 1
        right.position += 1
        return .equal
    }

    /// Whether a member named `name` (or one whose name has escapes, which
    /// might be it) follows the value at the parser's position in its object.
    private static func restOfObject(in parser: inout JSONParser, repeats name: UnsafeBufferPointer<UInt8>)
        throws(JSONParseError)
        -> Bool
    {
        guard mayHoldName(name, in: UnsafeBufferPointer(rebasing: parser.bytes[parser.position...])) else {
            return false
        }
        try parser.skipValue()
        while true {
            parser.skipWhitespace()
            guard parser.bytes[parser.position] == UInt8(ascii: ",") else { return false }
            parser.position += 1
            parser.skipWhitespace()
            guard case .inPlace(let range, isASCII: _) = try parser.scanString() else { return true }
            if sameBytes(UnsafeBufferPointer(rebasing: parser.bytes[range]), name) { return true }
            parser.skipWhitespace()
            parser.position += 1
            parser.skipWhitespace()
            try parser.skipValue()
        }
    }

    /// Whether `text` may hold a member named `name`: it holds `"name"` or a
    /// backslash (an escaped name might read as `name`). When it does not, the
    /// walk of the rest of the object can be left out: values that differ in their
    /// first member (a counter, a timestamp) are then unequal after one search,
    /// where the walk checked every later member.
    private static func mayHoldName(_ name: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return false }
        // `memchr` finds each byte in steps of many bytes; a loop over every byte cost as much as the walk.
        if memchr(base, Int32(UInt8(ascii: "\\")), text.count) != nil { return true }
        var offset = 0
        while offset < text.count, let found = memchr(base + offset, Int32(UInt8(ascii: "\"")), text.count - offset) {
            let start = base.distance(to: found.assumingMemoryBound(to: UInt8.self)) + 1
            let end = start + name.count
            if end < text.count, text[end] == UInt8(ascii: "\""),
                sameBytes(UnsafeBufferPointer(rebasing: text[start..<end]), name)
            {
                return true
            }
            offset = start
        }
        return false
    }

    /// Whether two byte ranges hold the same bytes, compared eight at a time.
    package static func sameBytes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        guard left.count == right.count else { return false }
        guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
        var index = 0
        while left.count - index >= 8 {
            let leftWord = UnsafeRawPointer(leftBase + index).loadUnaligned(as: UInt64.self)
            guard leftWord == UnsafeRawPointer(rightBase + index).loadUnaligned(as: UInt64.self) else { return false }
            index += 8
        }
        while index < left.count {
            guard left[index] == right[index] else { return false }
            index += 1
        }
        return true
    }
}
