/// Checks an object's members and keeps none of them: the members of objects
/// that ``JSONValidationMaker`` reads.
@usableFromInline
package struct JSONMemberSkipper: JSONMemberCollector {
    @inlinable
    package init() {}

    /// A name is checked and then not needed.
    @inlinable
    package static func name(_ bytes: UTF8Span) {}

    @inlinable
    package static func readName(from parser: inout JSONParser) throws(JSONParseError) {
        try parser.skipString()
    }

    @inlinable
    package mutating func readValue(named name: Void, from parser: inout JSONParser) throws(JSONParseError) {
        try parser.skipValue()
    }
}
