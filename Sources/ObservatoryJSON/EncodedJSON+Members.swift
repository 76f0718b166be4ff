extension EncodedJSON {
    /// One member of an object read by ``members(ofObject:maxDepth:)``: its name,
    /// and its value as the bytes that were sent.
    public typealias Member = (name: String, value: EncodedJSON)

    /// Checks that `bytes` are one JSON value, as ``init(validating:maxDepth:)``
    /// does, and when it is an object hands back its members in the order sent
    /// (a repeated name comes again), each value as its own bytes, without
    /// building any tree: so a message that carries a value (a cluster's stored
    /// envelope, a kept event) gives up that value's bytes in one pass.
    ///
    /// - Returns: the members, or `nil` when the value is valid but not an object.
    /// - Throws: The ``JSONParseError`` that `JSONValue.parse(_:maxDepth:)` throws for the same bytes.
    public static func members(ofObject bytes: some Collection<UInt8>, maxDepth: Int = JSONValue.defaultMaxDepth)
        throws(JSONParseError) -> [Member]?
    {
        let inPlace = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParseError) in try members(of: buffer, maxDepth: maxDepth) }
        }
        if let inPlace { return try inPlace.get() }
        return try Array(bytes).withUnsafeBufferPointer { (buffer) throws(JSONParseError) in
            try members(of: buffer, maxDepth: maxDepth)
        }
    }

    private static func members(of buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(JSONParseError)
        -> [Member]?
    {
        var collector = JSONMemberRanges()
        guard try JSONParser.parseMembers(of: buffer, maxDepth: maxDepth, into: &collector) == nil else { return nil }
        return collector.members.map { member in
            (member.name, EncodedJSON(validatedBytes: Array(buffer[member.range])))
        }
    }
}

/// Keeps each member's name and where its value's bytes are, checking the value
/// without building it.
private struct JSONMemberRanges: JSONMemberCollector {
    package var members: [(name: String, range: Range<Int>)] = []

    package static func name(_ bytes: UTF8Span) -> String {
        String(copying: bytes)
    }

    package mutating func readValue(named name: String, from parser: inout JSONParser) throws(JSONParseError) {
        let start = parser.position
        try parser.skipValue()
        members.append((name, start..<parser.position))
    }
}
