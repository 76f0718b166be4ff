/// Makes nothing: the parser only checks the bytes, allocating no tree, and
/// converts a number only when its size is in doubt (see ``JSONParser/checkRange(of:)``).
enum JSONValidationMaker: JSONValueMaker {
    static func null() {}

    static func bool(_ value: Bool) {}

    static func string(from parser: inout JSONParser) throws(JSONParseError) {
        try parser.skipString()
    }

    static func number(_ number: JSONParser.NumberText, in parser: borrowing JSONParser) throws(JSONParseError) {
        try parser.checkRange(of: number)
    }

    static func makeElements() {}

    static func append(_ element: Void, to elements: inout Void) {}

    static func array(_ elements: consuming Void) {}

    static func makeMembers() -> JSONMemberSkipper { JSONMemberSkipper() }

    static func object(_ members: consuming JSONMemberSkipper) {}
}
