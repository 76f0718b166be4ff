/// Reads the requests a server gets most, a `set` as clients send it
/// (`{"op":"set","id":7,"key":"k","value":…}`, its members in any order) and a
/// batch of such sets (`{"op":"batch","id":8,"ops":[{"op":"set","key":"k","value":…},…]}`),
/// in one pass over the frame: each member's name is recognised by its bytes,
/// `op`, `id` and `key` are kept as the ranges of their bytes, and each value is
/// checked by ``JSONQuickCheck``. Nothing is built but the keys' `String`s and
/// the values' bytes. (The full decoder, ``RequestFields`` then ``FieldReader``,
/// cost a `set` about 5,100 instructions, callgrind; see docs/benchmarks.md.)
///
/// It decides only frames whose answer it can be sure of: a valid `set` with
/// nothing but `op`, `id` (an integer of up to 18 digits, or a string), `key` and
/// `value`, each sent once, or a valid batch of `op`, `id` and `ops` whose 1 to
/// 128 elements each hold `op` (`"set"`), `key` and `value` once and name
/// different keys; `op`, `key` and a string `id` as ASCII without escapes; keys
/// that pass the plain key test (`isPlainKey`); values the quick check decides,
/// in a frame too small for a value to be too large. For every other frame,
/// valid or not, it answers nil and the full decoder reads the frame, with its
/// errors: so every frame gets the answer it got before.
struct QuickSetReader: ~Copyable {
    private let frame: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var op: Range<Int>?
    private var id: RequestID?
    /// The request's own `key` and `value`: a `set`'s.
    private var members = SetMembers()
    /// The elements of `ops`: a batch's sets.
    private var elements: [SetMembers]?

    /// The `key` and `value` of a set, where they are in the frame.
    private struct SetMembers {
        var key: Range<Int>?
        var value: Range<Int>?
        var namesAreUnique = false
    }

    private init(frame: UnsafeBufferPointer<UInt8>) {
        self.frame = frame
    }

    /// The `set` or batch of sets that `frame` holds, as
    /// `Request<EncodedJSON>.decode(frame:limits:)` decodes it; nil when the
    /// frame is anything else or this reader cannot tell.
    static func request(in frame: UnsafeBufferPointer<UInt8>, limits: RequestLimits) -> Request<EncodedJSON>? {
        var reader = QuickSetReader(frame: frame)
        guard limits.maxDepth >= 1, reader.readMembers(maxDepth: limits.maxDepth), let op = reader.op else {
            return nil
        }
        let name = UnsafeBufferPointer(rebasing: frame[op])
        if name.count == 3, name[0] == UInt8(ascii: "s"), name[1] == UInt8(ascii: "e"), name[2] == UInt8(ascii: "t") {
            guard reader.elements == nil, let (key, value) = reader.set(of: reader.members, limits: limits) else {
                return nil
            }
            let operation = Operation<EncodedJSON>.set(
                key: key, value: value, ifVersion: nil, sessionBound: false, requestId: nil, ttl: nil)
            return Request(id: reader.id, operation: operation, kind: .set)
        }
        guard name.holds("batch"), reader.members.key == nil, reader.members.value == nil,
            let elements = reader.elements, (1...BatchOperation<EncodedJSON>.maxCount).contains(elements.count)
        else {
            return nil
        }
        var operations: [BatchOperation<EncodedJSON>] = []
        operations.reserveCapacity(elements.count)
        // A key sent twice is an error: the full decoder says so. A few keys are
        // compared pair by pair, as bytes (plain keys: their bytes are their text);
        // more go through a set, as in the full decoder.
        let comparesPairs = elements.count <= 16
        guard !comparesPairs || reader.keysDiffer(elements) else { return nil }
        var keys = Set<String>(minimumCapacity: comparesPairs ? 0 : elements.count)
        for element in elements {
            guard let (key, value) = reader.set(of: element, limits: limits),
                comparesPairs || keys.insert(key).inserted
            else {
                return nil
            }
            operations.append(.set(key: key, value: value))
        }
        return Request(id: reader.id, operation: .batch(operations: operations, requestId: nil), kind: .batch)
    }

    /// Whether no two of `elements` have the same key bytes (an element without a key differs from all).
    private func keysDiffer(_ elements: [SetMembers]) -> Bool {
        for (index, element) in elements.enumerated() {
            guard let key = element.key else { continue }
            let bytes = UnsafeBufferPointer(rebasing: frame[key])
            for other in elements[(index + 1)...] {
                if let otherKey = other.key, otherKey.count == key.count,
                    JSONQuickComparison.sameBytes(bytes, UnsafeBufferPointer(rebasing: frame[otherKey]))
                {
                    return false
                }
            }
        }
        return true
    }

    /// The key and value of a set read as `members`; nil when either is missing,
    /// the key is not plain, or the value may be too large.
    // Inlined: called apart, it copied the reader's optionals through their
    // generic value witnesses (about 300 instructions a set, callgrind).
    @inline(__always)
    private func set(of members: SetMembers, limits: RequestLimits) -> (String, EncodedJSON)? {
        guard let keyRange = members.key, let valueRange = members.value else { return nil }
        return Self.set(
            key: keyRange, value: valueRange, namesAreUnique: members.namesAreUnique, in: frame, limits: limits)
    }

    /// The key and value of a set whose key (its bytes tested by the plain key
    /// scan, ``endOfPlainKey(in:from:)``) and checked value are at `key` and
    /// `value` in `frame`; nil when the key's length is not a key's or the value
    /// may be too large.
    @inline(__always)
    static func set(
        key keyRange: Range<Int>, value valueRange: Range<Int>, namesAreUnique: Bool,
        in frame: UnsafeBufferPointer<UInt8>, limits: RequestLimits
    ) -> (String, EncodedJSON)? {
        guard (1...KeyRules.maxBytes).contains(keyRange.count) else { return nil }
        let key = UnsafeBufferPointer(rebasing: frame[keyRange])
        let value = EncodedJSON(
            validatedBytes: Array(UnsafeBufferPointer(rebasing: frame[valueRange])), namesAreUnique: namesAreUnique)
        do {
            try EncodedJSON.checkSize(of: value, limit: limits.maxValueBytes, frameByteCount: frame.count)
        } catch {
            return nil
        }
        return (key.text, value)
    }

    /// Reads the frame's members; false when it is not an object of `op`, `id`,
    /// `key`, `value` and `ops` alone, each once and of the kinds this reader decides.
    private mutating func readMembers(maxDepth: Int) -> Bool {
        skipWhitespace()
        guard position < frame.count, frame[position] == UInt8(ascii: "{") else { return false }
        position += 1
        skipWhitespace()
        while true {
            guard let member = memberName() else { return false }
            skipWhitespace()
            guard position < frame.count, frame[position] == UInt8(ascii: ":") else { return false }
            position += 1
            skipWhitespace()
            guard readValue(of: member, maxDepth: maxDepth) else { return false }
            skipWhitespace()
            guard position < frame.count else { return false }
            let byte = frame[position]
            position += 1
            if byte == UInt8(ascii: "}") { break }
            guard byte == UInt8(ascii: ",") else { return false }
            skipWhitespace()
        }
        skipWhitespace()
        return position == frame.count
    }

    /// The members this reader knows.
    private enum Member {
        case op, id, key, value, ops
    }

    /// The member whose name starts at ``position`` (its opening quote), moving
    /// past the closing quote; nil for any other name, and when fewer than eight
    /// bytes are left (a usual set has its value or more after any name).
    ///
    /// Each name is compared with its quotes as one word, the bytes in memory
    /// order (little-endian): `"op"` is 22 6F 70 22, read as 0x2270_6F22.
    private mutating func memberName() -> Member? {
        guard let base = frame.baseAddress, frame.count - position >= 8 else { return nil }
        let word = UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
        switch word & 0xFFFF_FFFF {
        case 0x2270_6F22:
            position += 4
            return .op
        case 0x2264_6922:
            position += 4
            return .id
        default:
            break
        }
        switch word & 0xFF_FFFF_FFFF {
        case 0x22_7965_6B22:
            position += 5
            return .key
        case 0x22_7370_6F22:
            position += 5
            return .ops
        default:
            break
        }
        if word & 0xFF_FFFF_FFFF_FFFF == 0x22_6575_6C61_7622 {
            position += 7
            return .value
        }
        return nil
    }

    /// Reads the value of `member`, at its first byte.
    private mutating func readValue(of member: Member, maxDepth: Int) -> Bool {
        switch member {
        case .op:
            guard op == nil, let range = setOrPlainString() else { return false }
            op = range
        case .id:
            guard id == nil, let sent = readID() else { return false }
            id = sent
        case .key, .value:
            // The frame is the first container: the value is inside it.
            var fields = members
            defer { members = fields }
            return readSetMember(member, into: &fields, depth: 1, maxDepth: maxDepth)
        case .ops:
            return readElements(maxDepth: maxDepth)
        }
        return true
    }

    /// Reads a set's `key` or `value` into `fields`, inside `depth` containers.
    private mutating func readSetMember(_ member: Member, into fields: inout SetMembers, depth: Int, maxDepth: Int)
        -> Bool
    {
        if member == .key {
            guard fields.key == nil, let range = plainKey() else { return false }
            fields.key = range
            return true
        }
        guard fields.value == nil,
            let checked = JSONQuickCheck.value(in: frame, at: position, depth: depth, maxDepth: maxDepth)
        else {
            return false
        }
        fields.value = position..<checked.end
        fields.namesAreUnique = checked.namesAreUnique
        position = checked.end
        return true
    }

    /// Reads `ops` as an array of sets, each `{"op":"set","key":…,"value":…}`
    /// (members in any order, each once); false for anything else.
    private mutating func readElements(maxDepth: Int) -> Bool {
        // The array is the second container, its objects the third.
        guard elements == nil, maxDepth >= 3, position < frame.count, frame[position] == UInt8(ascii: "[") else {
            return false
        }
        position += 1
        var read: [SetMembers] = []
        while true {
            skipWhitespace()
            guard let element = readElement(maxDepth: maxDepth) else { return false }
            read.append(element)
            skipWhitespace()
            guard position < frame.count else { return false }
            let byte = frame[position]
            position += 1
            if byte == UInt8(ascii: "]") { break }
            guard byte == UInt8(ascii: ",") else { return false }
        }
        elements = read
        return true
    }

    /// One element of `ops`, at its opening brace; nil unless it is a set of a key and a value.
    private mutating func readElement(maxDepth: Int) -> SetMembers? {
        guard position < frame.count, frame[position] == UInt8(ascii: "{") else { return nil }
        position += 1
        var element = SetMembers()
        var isSet = false
        while true {
            skipWhitespace()
            guard let member = memberName() else { return nil }
            skipWhitespace()
            guard position < frame.count, frame[position] == UInt8(ascii: ":") else { return nil }
            position += 1
            skipWhitespace()
            switch member {
            case .op:
                guard !isSet, let range = setOrPlainString(), UnsafeBufferPointer(rebasing: frame[range]).holds("set")
                else {
                    return nil
                }
                isSet = true
            case .key, .value:
                guard readSetMember(member, into: &element, depth: 3, maxDepth: maxDepth) else { return nil }
            case .id, .ops:
                return nil
            }
            skipWhitespace()
            guard position < frame.count else { return nil }
            let byte = frame[position]
            position += 1
            if byte == UInt8(ascii: "}") { break }
            guard byte == UInt8(ascii: ",") else { return nil }
        }
        return isSet ? element : nil
    }

    /// An `id`: a string, or an integer literal of 1 to 18 digits (no fraction,
    /// no exponent: those are the full decoder's); nil for anything else.
    private mutating func readID() -> RequestID? {
        if position < frame.count, frame[position] == UInt8(ascii: "\"") {
            guard let range = plainString() else { return nil }
            return .string(UnsafeBufferPointer(rebasing: frame[range]).text)
        }
        guard let (integer, end) = JSONParser.plainInteger(in: frame, at: position) else { return nil }
        position = end
        return .integer(integer)
    }

    /// The content of the string at ``position`` (its opening quote), moving past
    /// it, when its bytes pass the plain key test (``endOfPlainKey(in:from:)``);
    /// nil for any other string or byte (the full decoder reads those keys).
    private mutating func plainKey() -> Range<Int>? {
        guard position < frame.count, frame[position] == UInt8(ascii: "\""),
            let end = Self.endOfPlainKey(in: frame, from: position + 1)
        else {
            return nil
        }
        defer { position = end + 1 }
        return position + 1..<end
    }

    /// The offset of the closing quote of the string whose content starts at
    /// `start`, when every byte before it passes the plain key test
    /// (``UnsafeBufferPointer/isPlainKey``: printable ASCII other than space),
    /// tested in the same scan that finds the quote; nil for any other byte
    /// first, or no quote.
    @inline(__always)
    static func endOfPlainKey(in frame: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = frame.baseAddress else { return nil }
        var index = start
        // Eight bytes at a time, as `isPlainKey` tests them, with the quote and
        // the backslash marked too: the lowest marked byte must be the closing quote.
        while frame.count - index >= 8 {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            let marked = notPlainKeyBytes(in: word)
            if marked != 0 {
                index += marked.trailingZeroBitCount / 8
                return frame[index] == UInt8(ascii: "\"") ? index : nil
            }
            index += 8
        }
        while index < frame.count, frame[index] > 0x20, frame[index] < 0x7F, frame[index] != UInt8(ascii: "\""),
            frame[index] != UInt8(ascii: "\\")
        {
            index += 1
        }
        return index < frame.count && frame[index] == UInt8(ascii: "\"") ? index : nil
    }

    /// The high bit of each byte of `word` (the first byte lowest) that is at or
    /// below a space, at or above 0x7F, a quote or a backslash; exact up to and
    /// including the lowest such byte, as in `JSONParser.specialBytes(in:)`.
    private static func notPlainKeyBytes(in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func bytesBelow(_ limit: UInt64, in value: UInt64) -> UInt64 {
            (value &- ones &* limit) & ~value & highBits
        }
        return bytesBelow(0x21, in: word) | (word &+ ones) & highBits | word & highBits
            | bytesBelow(1, in: word ^ (ones &* UInt64(UInt8(ascii: "\""))))
            | bytesBelow(1, in: word ^ (ones &* UInt64(UInt8(ascii: "\\"))))
    }

    /// The content of the string at ``position``, as ``plainString()`` reads it,
    /// with `"set"` (the usual op) recognised as one word: 22 73 65 74 22 in
    /// memory order, read as 0x22_7465_7322.
    private mutating func setOrPlainString() -> Range<Int>? {
        guard let base = frame.baseAddress, frame.count - position >= 8,
            UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self))
                & 0xFF_FFFF_FFFF == 0x22_7465_7322
        else {
            return plainString()
        }
        position += 5
        return position - 4..<position - 1
    }

    /// The content of the string at ``position`` (its opening quote), moving
    /// past it, when it is ASCII without escapes; nil for any other string or byte.
    private mutating func plainString() -> Range<Int>? {
        guard position < frame.count, frame[position] == UInt8(ascii: "\"") else { return nil }
        let start = position + 1
        var index = start
        while true {
            index = JSONParser.endOfPlainASCII(in: frame, from: index)
            guard index < frame.count else { return nil }
            let byte = frame[index]
            if byte == UInt8(ascii: "\"") {
                position = index + 1
                return start..<index
            }
            // A plain byte among the last seven, which the word scan leaves to this loop.
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
    }

    private mutating func skipWhitespace() {
        position = JSONBytes.endOfWhitespace(in: frame, from: position)
    }
}
