/// One JSON value kept as the validated bytes it was sent in, for a server that
/// stores and forwards values without building ``JSONValue`` trees.
///
/// The bytes are exactly one value by the rules of `JSONValue.parse(_:maxDepth:)`,
/// as they were received: whitespace around the value is dropped, everything
/// inside it is kept (member order, escapes, `1.0`, spaces). docs/protocol.md allows
/// that: a value "is stored and returned as it was sent". So writing it into a
/// reply or an event copies bytes, where a tree would be encoded again.
///
/// Equality is docs/protocol.md's equality of values, the same as ``JSONValue``'s:
/// `1` equals `1.0`, `{"a":1,"b":2}` equals `{"b":2,"a":1}`, and `"\u00e9"`
/// equals `"é"`. Equal bytes are equal without parsing; most other pairs are
/// decided in one pass over both bytes; the rest are decoded and compared as trees.
///
/// ```swift
/// let sent = try EncodedJSON(validating: Array(#" {"r":255, "g":1.0} "#.utf8))
/// sent.count                                // 18: the bytes of {"r":255, "g":1.0}
/// sent == EncodedJSON(["g": 1, "r": 255])   // true
/// sent.decoded()["r"]?.integerValue         // 255
/// ```
public struct EncodedJSON: Sendable {
    /// The value's bytes: one JSON value in UTF-8, with no whitespace around it.
    public let bytes: [UInt8]
    /// Whether the check that accepted the bytes found that no object in the
    /// value repeats a member name (see ``JSONQuickCheck``); false when it was
    /// not found out. Equality uses it to stop at the first differing member.
    package let namesAreUnique: Bool

    /// Wraps bytes known to be one valid value without whitespace around it,
    /// with what their check found out about their names.
    package init(validatedBytes: [UInt8], namesAreUnique: Bool = false) {
        bytes = validatedBytes
        self.namesAreUnique = namesAreUnique
    }

    /// Checks that `bytes` are one JSON value, exactly as `JSONValue.parse(_:maxDepth:)`
    /// does, without building it, and keeps the value's bytes.
    ///
    /// - Parameters:
    ///   - bytes: The UTF-8 text; whitespace around the value is dropped.
    ///   - maxDepth: How deep arrays and objects may nest.
    /// - Throws: The ``JSONParseError`` that `JSONValue.parse(_:maxDepth:)` throws
    ///   for the same bytes.
    public init(validating bytes: some Collection<UInt8>, maxDepth: Int = JSONValue.defaultMaxDepth)
        throws(JSONParseError)
    {
        let inPlace = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) in try Self.validated(buffer, maxDepth: maxDepth) }
        }
        if let inPlace {
            self = try inPlace.get()
            return
        }
        self = try Array(bytes).withUnsafeBufferPointer { (buffer) throws(JSONParseError) in
            try Self.validated(buffer, maxDepth: maxDepth)
        }
    }

    /// Encodes `value` compactly, as ``JSONValue/encode(into:)`` does.
    public init(_ value: JSONValue) {
        // A tree's objects hold unique names (``JSONObject``), and so do the bytes written from it.
        self.init(validatedBytes: value.encoded(), namesAreUnique: true)
    }

    /// The usual value is decided by the quick check, which also finds out
    /// about its names; the parser decides the rest, with its errors.
    private static func validated(_ buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(JSONParseError)
        -> EncodedJSON
    {
        if let checked = JSONQuickCheck.text(buffer, maxDepth: maxDepth) {
            return EncodedJSON(validatedBytes: Array(buffer[checked.range]), namesAreUnique: checked.namesAreUnique)
        }
        let range = try JSONParser.validate(buffer, maxDepth: maxDepth)
        return EncodedJSON(validatedBytes: Array(buffer[range]))
    }

    /// How many bytes the value takes, as sent: what it costs to store and to send.
    public var count: Int { bytes.count }

    /// The value as a tree, for code that reads into it.
    ///
    /// It cannot fail: the bytes were checked when this value was made (an
    /// ``init(_:)`` writes only what parses back), and the depth they were checked
    /// with is the only depth they can have.
    public func decoded() -> JSONValue {
        do {
            return try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) in
                try JSONParser.parse(buffer, maxDepth: .max)
            }
        } catch {
            preconditionFailure("EncodedJSON holds bytes that no longer parse: \(error)")
        }
    }

    /// Appends the value's bytes, as they are, to a message being built.
    public func encode(into buffer: inout [UInt8]) {
        buffer.append(contentsOf: bytes)
    }

    /// Whether the bytes are what ``JSONValue/encode(into:)`` writes for the value:
    /// then messages carrying them are byte for byte those the ``JSONValue``
    /// encoders write. Not so for `1.0` (written `1`), spaces, or escapes the
    /// encoder does not use (`\u00e9`, `\/`).
    public var isCanonical: Bool {
        decoded().encoded() == bytes
    }

    /// The size of the value's compact encoding, as ``JSONValue/encode(into:)``
    /// writes it: what `maxValueBytes` limits.
    package var canonicalCount: Int {
        decoded().encoded().count
    }
}

extension EncodedJSON: Equatable {
    /// Whether the two are the same JSON value, as ``JSONValue`` compares values.
    ///
    /// Equal bytes are equal at once. Otherwise one pass over both bytes
    /// decides most pairs without building anything:
    /// different types, numbers, arrays, ASCII strings, objects with their
    /// members in the same order (when both were checked to repeat no name, the
    /// first differing member decides). Only the rest (members in another order,
    /// escapes, non-ASCII strings with different bytes) are decoded and compared as trees.
    public static func == (lhs: EncodedJSON, rhs: EncodedJSON) -> Bool {
        let verdict = lhs.bytes.withUnsafeBufferPointer { left in
            rhs.bytes.withUnsafeBufferPointer { right in
                JSONQuickComparison.sameBytes(left, right)
                    ? .equal
                    : JSONQuickComparison.compare(
                        left, right, namesAreUnique: lhs.namesAreUnique && rhs.namesAreUnique)
            }
        }
        switch verdict {
        case .equal: return true
        case .unequal: return false
        case .undecided: return lhs.decoded() == rhs.decoded()
        }
    }
}

extension EncodedJSON: CustomStringConvertible {
    /// The JSON text as it was sent.
    public var description: String {
        String(decoding: bytes, as: UTF8.self)
    }
}
