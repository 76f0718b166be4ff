/// Checks an object's members and keeps none of them: the members of objects
/// that ``JSONValidationMaker`` reads.
package struct JSONMemberSkipper: JSONMemberCollector {
    /// A name is checked and then not needed.
    package static func name(_ bytes: UTF8Span) {}

    package static func readName(from parser: inout JSONParser) throws(JSONParseError) {
        try parser.skipString()
    }

    package mutating func readValue(named name: Void, from parser: inout JSONParser) throws(JSONParseError) {
        try parser.skipValue()
    }
}
