/// What the parser hands an object's members to, one at a time, so that an
/// object can be read into something other than a ``JSONObject``.
@usableFromInline
package protocol JSONMemberCollector {
    /// What a member's name becomes before its value is parsed.
    associatedtype Name
    /// Turns a member's name into a `Name`; the bytes live only during the call.
    static func name(_ bytes: UTF8Span) -> Name
    /// Reads a member's name at the parser's position (its opening quote); by
    /// default its content goes to ``name(_:)``.
    static func readName(from parser: inout JSONParser) throws(JSONParseError) -> Name
    /// Reads one member's value at the parser's position, in the order sent (a
    /// repeated name comes again), with ``JSONParser/parseValue(_:)`` as whatever
    /// it needs or with ``JSONParser/skipValue()`` when it keeps nothing of it.
    mutating func readValue(named name: Name, from parser: inout JSONParser) throws(JSONParseError)
}

extension JSONMemberCollector {
    @inlinable
    package static func readName(from parser: inout JSONParser) throws(JSONParseError) -> Name {
        try parser.withStringContent(name)
    }
}
