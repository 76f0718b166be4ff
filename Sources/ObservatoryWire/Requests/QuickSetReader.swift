/// Reads the request a server gets most, a `set` as clients send it
/// (`{"op":"set","id":7,"key":"k","value":…}`, its members in any order), in one
/// pass over the frame: each member's name is recognised by its bytes, `op`, `id`
/// and `key` are kept as the ranges of their bytes, and the value is checked by
/// ``JSONQuickCheck``. Nothing is built but the key's `String` and the value's
/// bytes. (The full decoder, ``RequestFields`` then ``FieldReader``, cost a `set`
/// about 5,100 instructions, callgrind; see docs/benchmarks.md.)
///
/// It decides only frames whose answer it can be sure of: a valid `set` with
/// nothing but `op`, `id` (an integer of up to 18 digits, or a string), `key` and
/// `value`, each sent once; `op`, `key` and a string `id` as ASCII without
/// escapes; a key that passes the plain key test (`isPlainKey`); a value the quick check
/// decides, in a frame too small for the value to be too large. For every other
/// frame, valid or not, it answers nil and the full decoder reads the frame,
/// with its errors: so every frame gets the answer it got before.
struct QuickSetReader: ~Copyable {
    private let frame: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var op: Range<Int>?
    private var id: RequestID?
    private var key: Range<Int>?
    private var value: Range<Int>?
    private var namesAreUnique = false

    private init(frame: UnsafeBufferPointer<UInt8>) {
        self.frame = frame
    }

    /// The `set` that `frame` holds, as `Request<EncodedJSON>.decode(frame:limits:)`
    /// decodes it; nil when the frame is anything else or this reader cannot tell.
    static func request(in frame: UnsafeBufferPointer<UInt8>, limits: RequestLimits) -> Request<EncodedJSON>? {
        var reader = QuickSetReader(frame: frame)
        guard limits.maxDepth >= 1, reader.readMembers(maxDepth: limits.maxDepth),
            let op = reader.op, op.count == 3, frame[op.lowerBound] == UInt8(ascii: "s"),
            frame[op.lowerBound + 1] == UInt8(ascii: "e"), frame[op.lowerBound + 2] == UInt8(ascii: "t"),
            let keyRange = reader.key, let valueRange = reader.value
        else {
            return nil
        }
        let key = UnsafeBufferPointer(rebasing: frame[keyRange])
        guard key.isPlainKey else { return nil }
        let value = EncodedJSON(
            validatedBytes: Array(UnsafeBufferPointer(rebasing: frame[valueRange])),
            namesAreUnique: reader.namesAreUnique)
        do {
            try EncodedJSON.checkSize(of: value, limit: limits.maxValueBytes, frameByteCount: frame.count)
        } catch {
            return nil
        }
        let operation = Operation<EncodedJSON>.set(
            key: String(decoding: key, as: UTF8.self), value: value, ifVersion: nil, sessionBound: false,
            requestId: nil, ttl: nil)
        return Request(id: reader.id, operation: operation, kind: .set)
    }

    /// Reads the frame's members; false when it is not an object of `op`, `id`,
    /// `key` and `value` alone, each once and of the kinds this reader decides.
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
        case op, id, key, value
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
        if word & 0xFF_FFFF_FFFF == 0x22_7965_6B22 {
            position += 5
            return .key
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
            guard op == nil, let range = plainString() else { return false }
            op = range
        case .id:
            guard id == nil, let sent = readID() else { return false }
            id = sent
        case .key:
            guard key == nil, let range = plainString() else { return false }
            key = range
        case .value:
            // The frame is the first container: the value is inside it.
            guard value == nil,
                let checked = JSONQuickCheck.value(in: frame, at: position, depth: 1, maxDepth: maxDepth)
            else {
                return false
            }
            value = position..<checked.end
            namesAreUnique = checked.namesAreUnique
            position = checked.end
        }
        return true
    }

    /// An `id`: a string, or an integer literal of 1 to 18 digits (no fraction,
    /// no exponent: those are the full decoder's); nil for anything else.
    private mutating func readID() -> RequestID? {
        if position < frame.count, frame[position] == UInt8(ascii: "\"") {
            guard let range = plainString() else { return nil }
            return .string(String(decoding: UnsafeBufferPointer(rebasing: frame[range]), as: UTF8.self))
        }
        guard let (integer, end) = JSONParser.plainInteger(in: frame, at: position) else { return nil }
        position = end
        return .integer(integer)
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
        // Compact JSON, what clients send, has none: one test and out.
        guard position < frame.count, frame[position] <= UInt8(ascii: " ") else { return }
        while position < frame.count {
            switch frame[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                position += 1
            default:
                return
            }
        }
    }
}
