/// Makes nothing: the parser only checks the bytes, allocating no tree, and
/// converts a number only when its size is in doubt (see ``JSONParser/checkRange(of:)``).
@usableFromInline
package enum JSONValidationMaker: JSONValueMaker {
    @inlinable
    package static func null() {}

    @inlinable
    package static func bool(_ value: Bool) {}

    @inlinable
    package static func string(from parser: inout JSONParser) throws(JSONParseError) {
        try parser.skipString()
    }

    @inlinable
    package static func number(_ number: JSONParser.NumberText, in parser: borrowing JSONParser) throws(JSONParseError)
    {
        try parser.checkRange(of: number)
    }

    @inlinable
    package static func makeElements() {}

    @inlinable
    package static func append(_ element: Void, to elements: inout Void) {}

    @inlinable
    package static func array(_ elements: consuming Void) {}

    @inlinable
    package static func makeMembers() -> JSONMemberSkipper { JSONMemberSkipper() }

    @inlinable
    package static func object(_ members: consuming JSONMemberSkipper) {}
}
