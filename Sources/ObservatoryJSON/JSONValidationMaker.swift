/// Makes nothing: the parser only checks the bytes, allocating no tree, and
/// converts a number only when its size is in doubt (see ``JSONParser/checkRange(of:)``).
package enum JSONValidationMaker: JSONValueMaker {
    package static func null() {}

    package static func bool(_ value: Bool) {}

    package static func string(from parser: inout JSONParser) throws(JSONParseError) {
        try parser.skipString()
    }

    package static func number(_ number: JSONParser.NumberText, in parser: borrowing JSONParser) throws(JSONParseError)
    {
        try parser.checkRange(of: number)
    }

    package static func makeElements() {}

    package static func append(_ element: Void, to elements: inout Void) {}

    package static func array(_ elements: consuming Void) {}

    package static func makeMembers() -> JSONMemberSkipper { JSONMemberSkipper() }

    package static func object(_ members: consuming JSONMemberSkipper) {}
}
