/// Checks an object's members and keeps none of them: the members of objects
/// that ``JSONValidationMaker`` reads.
struct JSONMemberSkipper: JSONMemberCollector {
    /// A name is checked by the parser and then not needed.
    static func name(_ bytes: UTF8Span) {}

    mutating func readValue(named name: Void, from parser: inout JSONParser) throws(JSONParseError) {
        try parser.skipValue()
    }
}
