/// Makes ``JSONValue`` trees: what `JSONValue.parse(_:maxDepth:)` returns.
enum JSONTreeMaker: JSONValueMaker {
    static func null() -> JSONValue { .null }

    static func bool(_ value: Bool) -> JSONValue { .bool(value) }

    static func string(from parser: inout JSONParser) throws(JSONParseError) -> JSONValue {
        try parser.withStringContent { .string(String(copying: $0)) }
    }

    static func number(_ number: JSONParser.NumberText, in parser: borrowing JSONParser) throws(JSONParseError)
        -> JSONValue
    {
        try parser.numberValue(of: number)
    }

    static func makeElements() -> [JSONValue] { [] }

    static func append(_ element: JSONValue, to elements: inout [JSONValue]) { elements.append(element) }

    static func array(_ elements: consuming [JSONValue]) -> JSONValue { .array(elements) }

    static func makeMembers() -> JSONObjectBuilder { JSONObjectBuilder() }

    static func object(_ members: consuming JSONObjectBuilder) -> JSONValue { .object(members.object) }
}
