extension JSONValue {
    /// The default limit on nesting of arrays and objects when parsing.
    public static let defaultMaxDepth = 64

    /// Parses one JSON value from UTF-8 bytes, strictly by RFC 8259.
    ///
    /// Whitespace may surround the value; anything else after it is an error. No
    /// trailing commas, comments, NaN or leading zeros. Strings must be valid UTF-8
    /// and `\u` escapes must not leave lone surrogates. Integers in Int64's range
    /// become ``integer(_:)``; larger integers and all numbers with a fraction or an
    /// exponent become ``double(_:)``; a number beyond Double's range (`1e400`) is an
    /// error. A repeated object key keeps its last value.
    ///
    /// - Parameters:
    ///   - bytes: The UTF-8 text. Contiguous collections (`[UInt8]`, `ArraySlice`,
    ///     buffer pointers) are parsed in place; others are copied first.
    ///   - maxDepth: How deep arrays and objects may nest (the top-level container
    ///     is depth 1), so a hostile input cannot exhaust the stack.
    /// - Throws: ``JSONParseError`` with the byte offset and the reason.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaxDepth) throws(JSONParseError)
        -> JSONValue
    {
        let inPlace = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) in try JSONParser.parse(buffer, maxDepth: maxDepth) }
        }
        if let inPlace {
            return try inPlace.get()
        }
        return try Array(bytes).withUnsafeBufferPointer { (buffer) throws(JSONParseError) in
            try JSONParser.parse(buffer, maxDepth: maxDepth)
        }
    }

    /// Parses one JSON value from a string; see ``parse(_:maxDepth:)``.
    public static func parse(_ text: String, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }

    /// The compact UTF-8 JSON text of this value; see ``encode(into:)``.
    public func encoded() -> [UInt8] {
        var buffer: [UInt8] = []
        encode(into: &buffer)
        return buffer
    }

    /// Appends the compact UTF-8 JSON text of this value to `buffer`.
    ///
    /// No whitespace; object members in their stored order; `"`, `\` and control
    /// characters escaped, all other characters written as UTF-8; integers exact;
    /// doubles in shortest round-trip form, whole ones up to 2^53 without a fraction
    /// (`2.0` → `2`) except `-0.0`; non-finite doubles as `null`.
    public func encode(into buffer: inout [UInt8]) {
        JSONWriter.write(self, into: &buffer)
    }
}
