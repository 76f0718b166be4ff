/// The fields of one request, read in a single pass over its frame.
///
/// Decoding a request looks up a handful of fields. Building a ``JSONObject``
/// first, then finding each field by comparing names, cost a `set` about 1,500
/// instructions (callgrind); here each member's name is matched once, as bytes,
/// while the frame is parsed, and its value lands in the field's slot. Members that no
/// request has are still parsed (the frame must be valid JSON) and then dropped,
/// since docs/protocol.md ignores unknown fields. A repeated field keeps its last
/// value, as in a `JSONObject`.
struct RequestFields {
    /// For each ``RequestField``, by raw value, where its value is in ``values``; -1 when absent.
    /// Plain bytes, so passing the fields around copies no reference counts.
    private var positions = InlineArray<16, Int8>(repeating: -1)
    /// The values of the fields present, in the order they were first sent.
    private var values: [JSONValue] = []

    /// The frame, when it was not an object; its fields are then all absent.
    private(set) var nonObject: JSONValue?

    /// Whether the `value` field is kept as the range of its bytes in the frame
    /// (``valueBytes``) instead of as a tree.
    private let keepsValueBytes: Bool
    /// Where the last `value` field's bytes are in the frame, when ``keepsValueBytes``;
    /// nil when there is none.
    private(set) var valueBytes: Range<Int>?

    /// Reads the fields of a frame; a frame that is valid JSON but no object
    /// leaves its value in ``nonObject``.
    ///
    /// - Parameter keepsValueBytes: When true, the `value` field is only checked,
    ///   and its place in `frame` is kept in ``valueBytes``; it has no tree then.
    init(parsing frame: UnsafeBufferPointer<UInt8>, maxDepth: Int, keepsValueBytes: Bool = false)
        throws(JSONParseError)
    {
        self.keepsValueBytes = keepsValueBytes
        nonObject = try JSONParser.parseMembers(of: frame, maxDepth: maxDepth, into: &self)
    }

    /// Reads the fields of an already parsed object.
    init(_ object: JSONObject) {
        keepsValueBytes = false
        for member in object.members {
            var name = member.key
            if let field = name.withUTF8({ RequestField(name: $0) }) {
                store(member.value, for: field)
            }
        }
    }

    /// How many fields there are slots for; every ``RequestField`` needs one.
    static let capacity = InlineArray<16, Int8>.count

    /// Sets a field; a field sent twice keeps its last value.
    private mutating func store(_ value: JSONValue, for field: RequestField) {
        let position = positions[field.rawValue]
        if position >= 0 {
            values[Int(position)] = value
            return
        }
        if values.isEmpty {
            // A request has a handful of fields: one allocation for them all.
            values.reserveCapacity(Self.initialCapacity)
        }
        positions[field.rawValue] = Int8(values.count)
        values.append(value)
    }

    private static let initialCapacity = 6
}

extension RequestFields: FieldSource {
    func value(of field: RequestField) -> JSONValue? {
        let position = positions[field.rawValue]
        // Not `nil`: JSONValue takes the nil literal too, as `null`.
        guard position >= 0 else { return Optional.none }
        return values[Int(position)]
    }

    static func name(of field: RequestField) -> String {
        field.name
    }
}

extension RequestFields: JSONMemberCollector {
    /// A member's field; nil for a member no request has.
    static func name(_ bytes: UTF8Span) -> RequestField? {
        bytes.span.withUnsafeBufferPointer { RequestField(name: $0) }
    }

    /// Members that are no request's fields are checked and dropped, without a tree.
    mutating func readValue(named field: RequestField?, from parser: inout JSONParser) throws(JSONParseError) {
        guard let field else {
            try parser.skipValue()
            return
        }
        if keepsValueBytes, field == .value {
            let start = parser.position
            try parser.skipValue()
            valueBytes = start..<parser.position
            return
        }
        store(try parser.parseValue(JSONTreeMaker.self), for: field)
    }
}
