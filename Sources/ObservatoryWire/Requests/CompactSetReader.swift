/// Reads a `set` sent as compact JSON in one of the two orders clients send it
/// in, `{"op":"set","id":7,"key":"k","value":…}` (loadgen, most clients) and
/// `{"id":7,"op":"set","key":"k","value":…}` (``Request/encoded()``), the `id`
/// an integer of at most 18 digits or left out: its fixed bytes are compared as
/// words in one straight pass, without looking up members, keeping optionals or
/// testing for members sent twice (``QuickSetReader`` reads any order, and cost
/// a `set` about 550 instructions more, callgrind; see docs/benchmarks.md).
///
/// It decides a subset of the frames ``QuickSetReader`` decides, with the same
/// tests (the plain key scan, ``JSONQuickCheck`` for the value, the limits) and
/// the same request; any other frame (a space between members, another order,
/// a string `id`, anything after the value) it leaves to that reader, which
/// gives every frame the answer it got before.
enum CompactSetReader {
    /// The `set` that `frame` holds, as `Request<EncodedJSON>.decode(frame:limits:)`
    /// decodes it; nil when the frame is not spelled as this reader reads it.
    static func request(in frame: UnsafeBufferPointer<UInt8>, limits: RequestLimits) -> Request<EncodedJSON>? {
        // The shortest frame read here, `{"op":"set","key":"k","value":1}`, has 33
        // bytes: the words of its first 20 are loaded without another test.
        guard let base = frame.baseAddress, frame.count >= 33, limits.maxDepth >= 1 else { return nil }
        // Eight bytes from `offset`, the first lowest: `offset + 8 <= frame.count` at every call.
        func word(at offset: Int) -> UInt64 {
            UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
        }
        var position: Int
        var id: Int64?
        if word(at: 0) == Self.openingOp, word(at: 4) == Self.colonSetComma {
            // `{"op":"set",`, then `"id":` and digits and a comma, or not.
            position = 12
            if word(at: position) & 0xFF_FFFF_FFFF == Self.idName {
                guard let (sent, end) = integer(in: frame, at: position + 5), frame.count - end >= 21,
                    frame[end] == UInt8(ascii: ",")
                else {
                    return nil
                }
                id = sent
                position = end + 1
            }
        } else if word(at: 0) & 0xFFFF_FFFF_FFFF == Self.openingID {
            // `{"id":`, digits, then `,"op":"set",`.
            guard let (sent, end) = integer(in: frame, at: 6), frame.count - end >= 32,
                word(at: end) == Self.commaOp, word(at: end + 4) == Self.colonSetComma
            else {
                return nil
            }
            id = sent
            position = end + 12
        } else {
            return nil
        }
        // `"key":"`, the key, its closing quote (at least 21 bytes are left: the
        // shortest key, its member `value` and the closing brace).
        guard word(at: position) & 0xFF_FFFF_FFFF_FFFF == Self.keyName,
            let keyEnd = QuickSetReader.endOfPlainKey(in: frame, from: position + 7),
            frame.count - keyEnd >= 12, word(at: keyEnd + 1) == Self.commaValue,
            frame[keyEnd + 9] == UInt8(ascii: ":")
        else {
            return nil
        }
        let key = position + 7..<keyEnd
        // The value ends where the frame's closing brace is, the frame's last byte.
        let valueStart = keyEnd + 10
        guard let checked = JSONQuickCheck.value(in: frame, at: valueStart, depth: 1, maxDepth: limits.maxDepth),
            checked.end == frame.count - 1, frame[checked.end] == UInt8(ascii: "}"),
            let (keyText, value) = QuickSetReader.set(
                key: key, value: valueStart..<checked.end, namesAreUnique: checked.namesAreUnique, in: frame,
                limits: limits)
        else {
            return nil
        }
        let operation = Operation<EncodedJSON>.set(
            key: keyText, value: value, ifVersion: nil, sessionBound: false, requestId: nil, ttl: nil)
        return Request(id: id.map { .integer($0) }, operation: operation, kind: .set)
    }

    /// The integer literal at `start` and the offset past it, as
    /// `JSONParser.plainInteger(in:at:)` reads it (1 to 18 digits, an optional
    /// minus, no leading zero, no fraction or exponent after it); up to seven
    /// digits without a sign are found with one test of eight bytes.
    @inline(__always)
    private static func integer(in frame: UnsafeBufferPointer<UInt8>, at start: Int) -> (value: Int64, end: Int)? {
        guard let base = frame.baseAddress, frame.count - start >= 8 else { return nil }
        let word = UInt64(littleEndian: UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self))
        // As in `JSONQuickCheck`: a byte below "0" borrows when 0x30 is taken
        // from it, one above "9" reaches its high bit when 0x46 is added; the
        // lowest marked byte is the first that is not a digit.
        let others = ((word &- 0x3030_3030_3030_3030) | (word &+ 0x4646_4646_4646_4646)) & 0x8080_8080_8080_8080
        let digits = others.trailingZeroBitCount / 8
        // No digit (a sign, or not a number), eight or more, or a leading zero:
        // the parser's own reading decides.
        guard digits > 0, digits < 8, word & 0xFF != UInt64(UInt8(ascii: "0")) else {
            return JSONParser.plainInteger(in: frame, at: start)
        }
        // What follows is not a digit; a fraction or an exponent is the full decoder's.
        let next = UInt8(truncatingIfNeeded: word >> (digits * 8))
        guard next != UInt8(ascii: "."), next | 0x20 != UInt8(ascii: "e") else { return nil }
        var value: Int64 = 0
        for offset in 0..<digits {
            value = value &* 10 &+ Int64(UInt8(truncatingIfNeeded: word >> (offset * 8)) &- UInt8(ascii: "0"))
        }
        return (value, start + digits)
    }

    // The fixed bytes, each read as a word in memory order (little-endian): the
    // first byte is the lowest.
    /// `{"op":"s`
    private static let openingOp: UInt64 = 0x7322_3A22_706F_227B
    /// `":"set",`, the bytes 4 to 11 of `{"op":"set",` and of `,"op":"set",`.
    private static let colonSetComma: UInt64 = 0x2C22_7465_7322_3A22
    /// `"id":`, five bytes.
    private static let idName: UInt64 = 0x3A_2264_6922
    /// `{"id":`, six bytes.
    private static let openingID: UInt64 = 0x3A22_6469_227B
    /// `,"op":"s`
    private static let commaOp: UInt64 = 0x7322_3A22_706F_222C
    /// `"key":"`, seven bytes.
    private static let keyName: UInt64 = 0x22_3A22_7965_6B22
    /// `,"value"`
    private static let commaValue: UInt64 = 0x2265_756C_6176_222C
}
