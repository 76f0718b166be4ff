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
            let op = reader.op, OperationKind.named(UnsafeBufferPointer(rebasing: frame[op])) == .set,
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
            guard let name = plainString() else { return false }
            skipWhitespace()
            guard position < frame.count, frame[position] == UInt8(ascii: ":") else { return false }
            position += 1
            skipWhitespace()
            guard readValue(named: UnsafeBufferPointer(rebasing: frame[name]), maxDepth: maxDepth) else {
                return false
            }
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

    /// Reads the value of the member `name`, at its first byte.
    private mutating func readValue(named name: UnsafeBufferPointer<UInt8>, maxDepth: Int) -> Bool {
        switch name.count {
        case 2 where name.holds("op"):
            guard op == nil, let range = plainString() else { return false }
            op = range
        case 2 where name.holds("id"):
            guard id == nil, let sent = readID() else { return false }
            id = sent
        case 3 where name.holds("key"):
            guard key == nil, let range = plainString() else { return false }
            key = range
        case 5 where name.holds("value"):
            // The frame is the first container: the value is inside it.
            guard value == nil,
                let checked = JSONQuickCheck.value(in: frame, at: position, depth: 1, maxDepth: maxDepth)
            else {
                return false
            }
            value = position..<checked.end
            namesAreUnique = checked.namesAreUnique
            position = checked.end
        default:
            return false
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
        var index = position
        let isNegative = index < frame.count && frame[index] == UInt8(ascii: "-")
        if isNegative { index += 1 }
        let digitsStart = index
        var magnitude: Int64 = 0
        while index < frame.count, frame[index] &- UInt8(ascii: "0") < 10, index - digitsStart < 18 {
            magnitude = magnitude &* 10 &+ Int64(frame[index] &- UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - digitsStart
        guard digits > 0, frame[digitsStart] != UInt8(ascii: "0") || digits == 1 else { return nil }
        // What follows must end the number: not a digit (a 19th, or after a leading zero), `.`, `e` or `E`.
        if index < frame.count {
            let next = frame[index]
            guard next &- UInt8(ascii: "0") >= 10, next != UInt8(ascii: "."), next | 0x20 != UInt8(ascii: "e") else {
                return nil
            }
        }
        position = index
        return .integer(isNegative ? -magnitude : magnitude)
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
