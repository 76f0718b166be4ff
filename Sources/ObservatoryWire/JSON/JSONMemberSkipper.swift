/// Checks an object's members and keeps none of them: the members of objects
/// that ``JSONValidationMaker`` reads.
struct JSONMemberSkipper: JSONMemberCollector {
    /// A name is checked and then not needed.
    static func name(_ bytes: UTF8Span) {}

    static func readName(from parser: inout JSONParser) throws(JSONParseError) {
        try parser.skipString()
    }

    mutating func readValue(named name: Void, from parser: inout JSONParser) throws(JSONParseError) {
        try parser.skipValue()
    }
}
