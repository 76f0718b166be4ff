/// The fields of one request, read in a single pass over its frame.
///
/// Decoding a request looks up a handful of fields. Building a `JSONObject`
/// first, then finding each field by comparing names, cost a `set` about 1,500
/// instructions (callgrind); here each member's name is matched once, as bytes,
/// while the frame is parsed, and its value lands in the field's slot. Members that no
/// request has are still parsed (the frame must be valid JSON) and then dropped,
/// since docs/protocol.md ignores unknown fields. A repeated field keeps its last
/// value, as in a `JSONObject`.
///
/// The fields a `set` carries build no value while the frame is read: a string
/// without escapes (`op`, `key`, a string `id`) and a number, `true`, `false`
/// or `null` are checked and kept as the range of their bytes (an integer such
/// as `id` as its number), and made into a `JSONValue` only when asked for; the `value`
/// (when ``valueBytes`` is wanted) is kept as its range. Only other values are
/// built as trees, into an array allocated when the first one comes; so a usual
/// `set` allocates nothing here (callgrind: see docs/benchmarks.md).
///
/// Read from a frame, the fields borrow it: ask for them only while the frame's
/// buffer lives (``Request`` decodes within it).
struct RequestFields {
    /// Each ``RequestField``'s slot, by raw value: where its value is, packed in
    /// a plain integer (see ``Slot``), so that passing the fields around copies
    /// bytes and no reference counts.
    private var slots = InlineArray<22, UInt64>(repeating: Slot.packedAbsent)
    /// The values of the fields kept as trees, in the order they were first sent.
    private var trees: [JSONValue] = []
    /// The frame the ranges point into; empty for fields read from an object.
    private let frame: UnsafeBufferPointer<UInt8>

    /// The frame, when it was not an object; its fields are then all absent.
    private(set) var nonObject: JSONValue?

    /// Whether the `value` field is kept as the range of its bytes in the frame
    /// (``valueBytes``) instead of as a tree: always, for fields read from a frame.
    private let keepsValueBytes: Bool
    /// Where the last `value` field's bytes are in the frame, when ``keepsValueBytes``;
    /// nil when there is none.
    private(set) var valueBytes: Range<Int>?
    /// The fields of each element of the last `ops` field, read in the same pass
    /// as the frame (each with its `value` as bytes), when `ops` is an array in a
    /// frame; an element that is no object has its value in ``nonObject``. Nil
    /// when `ops` is absent or no array (it is then a field like any other), and
    /// for fields read from an object.
    private(set) var batchElements: [RequestFields]?
    /// Whether an `ops` array is read into ``batchElements`` (only a request's own
    /// fields: an element's `ops` is no field of a batch operation).
    private let readsBatchElements: Bool

    /// Reads the fields of a frame; a frame that is valid JSON but no object
    /// leaves its value in ``nonObject``. The `value` field is only checked, and
    /// its place in `frame` kept in ``valueBytes``; so are the values of the
    /// elements of `ops` (``batchElements``). The fields borrow `frame`: read
    /// them only while it lives.
    init(parsing frame: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(JSONParseError) {
        self.frame = frame
        keepsValueBytes = true
        readsBatchElements = true
        nonObject = try JSONParser.parseMembers(of: frame, maxDepth: maxDepth, into: &self)
    }

    /// Empty fields for an element of a batch's `ops` in `frame`, read by the request's parser.
    private init(elementOf frame: UnsafeBufferPointer<UInt8>) {
        self.frame = frame
        keepsValueBytes = true
        readsBatchElements = false
    }

    /// The fields of an element of an already parsed batch's `ops`: an object's
    /// fields, or a value that is no object in ``nonObject``.
    init(element: JSONValue) {
        guard let object = element.objectValue else {
            self.init(JSONObject())
            nonObject = element
            return
        }
        self.init(object)
    }

    /// Reads the fields of an already parsed object.
    init(_ object: JSONObject) {
        frame = UnsafeBufferPointer(start: nil, count: 0)
        keepsValueBytes = false
        readsBatchElements = false
        for member in object.members {
            var name = member.key
            if let field = name.withUTF8({ RequestField(name: $0) }) {
                store(member.value, for: field)
            }
        }
    }

    /// How many fields there are slots for; every ``RequestField`` needs one.
    static let capacity = InlineArray<22, UInt64>.count

    /// The bytes of a field sent as a string without escapes, all ASCII; nil for
    /// any other field. They live as long as the frame.
    func plainString(_ field: RequestField) -> UnsafeBufferPointer<UInt8>? {
        guard case .plainString(let range) = Slot(slots[field.rawValue]) else { return nil }
        return UnsafeBufferPointer(rebasing: frame[range])
    }

    /// The `value` field made as `Value`: from the bytes it was sent as (checked
    /// as JSON with the frame), or from its tree for fields read from an object;
    /// nil when there is none.
    func sentValue<Value: RequestValue>() -> Value? {
        if let range = valueBytes {
            return Value.made(fromChecked: UnsafeBufferPointer(rebasing: frame[range]))
        }
        return value(of: .value).map { Value.made(fromTree: $0) }
    }

    /// The request's `id` as it was sent: read from its slot, so that an integer
    /// id (the usual kind) builds no value.
    var sentID: SentID {
        switch Slot(slots[RequestField.id.rawValue]) {
        case .absent: return .absent
        case .integer(let integer): return .valid(.integer(integer))
        case .plainString(let range):
            return .valid(.string(String(decoding: UnsafeBufferPointer(rebasing: frame[range]), as: UTF8.self)))
        case .tree, .scalar:
            switch value(of: .id) {
            case .string(let string)?: return .valid(.string(string))
            case .integer(let integer)?: return .valid(.integer(integer))
            case let other?: return .invalid(other)
            case .none: return .absent
            }
        }
    }

    /// An `id` as sent: absent, a string or an integer, or any other value (an error).
    enum SentID {
        case absent
        case valid(RequestID)
        case invalid(JSONValue)
    }

    /// Sets a field to a tree; a field sent twice keeps its last value.
    private mutating func store(_ value: JSONValue, for field: RequestField) {
        if case .tree(let index) = Slot(slots[field.rawValue]) {
            trees[index] = value
            return
        }
        if trees.isEmpty {
            // The fields that need a tree are few: one allocation for them all.
            trees.reserveCapacity(Self.initialCapacity)
        }
        slots[field.rawValue] = Slot.packedTree(trees.count)
        trees.append(value)
    }

    private static let initialCapacity = 4

    /// Where a field's value is, as packed into a slot: the low three bits say
    /// which kind, the rest where (or the integer itself).
    private enum Slot {
        case absent
        /// In ``trees``, at this index.
        case tree(Int)
        /// A string without escapes whose bytes are all ASCII: its content at this range of the frame.
        case plainString(Range<Int>)
        /// A number, `true`, `false` or `null`, checked: its text at this range of the frame.
        case scalar(Range<Int>)
        /// An integer literal of less than 61 bits.
        case integer(Int64)

        static let packedAbsent: UInt64 = 0

        static func packedTree(_ index: Int) -> UInt64 {
            UInt64(index) << 3 | 1
        }

        /// A range packed with `kind` (2 or 3); nil when it lies beyond 1 GiB.
        static func packedRange(_ range: Range<Int>, kind: UInt64) -> UInt64? {
            guard range.upperBound < 1 << 30 else { return nil }
            return UInt64(range.lowerBound) << 3 | UInt64(range.upperBound) << 33 | kind
        }

        /// An integer packed whole; nil when it needs more than 61 bits.
        static func packedInteger(_ integer: Int64) -> UInt64? {
            guard integer >> 60 == 0 || integer >> 60 == -1 else { return nil }
            return UInt64(bitPattern: integer << 3) | 4
        }

        init(_ packed: UInt64) {
            let range = { Int(truncatingIfNeeded: packed >> 3 & 0x3FFF_FFFF)..<Int(truncatingIfNeeded: packed >> 33) }
            switch packed & 7 {
            case 0: self = .absent
            case 1: self = .tree(Int(truncatingIfNeeded: packed >> 3))
            case 2: self = .plainString(range())
            case 3: self = .scalar(range())
            default: self = .integer(Int64(bitPattern: packed) >> 3)
            }
        }
    }
}

extension RequestFields: FieldSource {
    func value(of field: RequestField) -> JSONValue? {
        switch Slot(slots[field.rawValue]) {
        // Not `nil`: JSONValue takes the nil literal too, as `null`.
        case .absent: return Optional.none
        case .tree(let index): return trees[index]
        case .integer(let integer): return .integer(integer)
        case .plainString(let range):
            return .string(String(decoding: UnsafeBufferPointer(rebasing: frame[range]), as: UTF8.self))
        case .scalar(let range):
            // Checked when the frame was read, so it parses again; `null` were it not.
            return (try? JSONParser.parse(UnsafeBufferPointer(rebasing: frame[range]), maxDepth: 1)) ?? .null
        }
    }

    static func name(of field: RequestField) -> String {
        field.name
    }

    func isAbsent(_ field: RequestField) -> Bool {
        slots[field.rawValue] == Slot.packedAbsent
    }

    func plainText(of field: RequestField) -> String? {
        plainString(field).map { String(decoding: $0, as: UTF8.self) }
    }
}

extension RequestFields: JSONMemberCollector {
    /// A member's field; nil for a member no request has.
    static func name(_ bytes: UTF8Span) -> RequestField? {
        bytes.span.withUnsafeBufferPointer { RequestField(name: $0) }
    }

    /// Members that are no request's fields are checked and dropped, without a
    /// tree; plain strings and integers are kept without one too.
    mutating func readValue(named field: RequestField?, from parser: inout JSONParser) throws(JSONParseError) {
        guard let field else {
            try parser.skipValue()
            return
        }
        let start = parser.position
        if keepsValueBytes, field == .value {
            try parser.skipValue()
            valueBytes = start..<parser.position
            return
        }
        if readsBatchElements, field == .ops {
            // A field sent twice keeps its last value: an array replaces what came before, and goes with what follows.
            batchElements = nil
            if start < parser.bytes.count, parser.bytes[start] == UInt8(ascii: "[") {
                slots[field.rawValue] = Slot.packedAbsent
                batchElements = try readElements(from: &parser)
                return
            }
        }
        switch start < parser.bytes.count ? parser.bytes[start] : 0 {
        case UInt8(ascii: "\""):
            if case .inPlace(let range, isASCII: true) = try parser.scanString(),
                let slot = Slot.packedRange(range, kind: 2)
            {
                // Past the closing quote; ASCII without escapes needs no further check.
                slots[field.rawValue] = slot
                return
            }
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            break
        default:
            // A number or literal builds no tree; an integer, what `id` usually is, is kept whole.
            let value = try parser.parseValue(JSONTreeMaker.self)
            if case .integer(let integer) = value, let slot = Slot.packedInteger(integer) {
                slots[field.rawValue] = slot
                return
            }
            if let slot = Slot.packedRange(start..<parser.position, kind: 3) {
                slots[field.rawValue] = slot
                return
            }
        }
        // Anything else is parsed from its start again (a string with escapes or
        // other bytes is checked and decoded there, with the same errors).
        parser.position = start
        store(try parser.parseValue(JSONTreeMaker.self), for: field)
    }

    /// Reads an array's elements as batch operations' fields, at its opening
    /// bracket, with the checks and errors of ``JSONParser/parseArray(_:)``.
    private func readElements(from parser: inout JSONParser) throws(JSONParseError) -> [RequestFields] {
        try parser.enterContainer()
        defer { parser.depth -= 1 }
        var elements: [RequestFields] = []
        if try parser.consumeIfPresent(UInt8(ascii: "]")) { return elements }
        while true {
            var element = RequestFields(elementOf: frame)
            if parser.position < parser.bytes.count, parser.bytes[parser.position] == UInt8(ascii: "{") {
                try parser.parseMembers(into: &element)
            } else {
                element.nonObject = try parser.parseValue(JSONTreeMaker.self)
            }
            elements.append(element)
            parser.skipWhitespace()
            if try parser.consumeIfPresent(UInt8(ascii: "]")) { return elements }
            try parser.expect(UInt8(ascii: ","), "expected \",\" or \"]\" in an array")
            parser.skipWhitespace()
        }
    }
}
