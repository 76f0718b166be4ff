/// Makes ``JSONValue`` trees: what `JSONValue.parse(_:maxDepth:)` returns.
package enum JSONTreeMaker: JSONValueMaker {
    package static func null() -> JSONValue { .null }

    package static func bool(_ value: Bool) -> JSONValue { .bool(value) }

    package static func string(from parser: inout JSONParser) throws(JSONParseError) -> JSONValue {
        try parser.withStringContent { .string(String(copying: $0)) }
    }

    package static func number(_ number: JSONParser.NumberText, in parser: borrowing JSONParser) throws(JSONParseError)
        -> JSONValue
    {
        try parser.numberValue(of: number)
    }

    package static func makeElements() -> [JSONValue] { [] }

    package static func append(_ element: JSONValue, to elements: inout [JSONValue]) { elements.append(element) }

    package static func array(_ elements: consuming [JSONValue]) -> JSONValue { .array(elements) }

    package static func makeMembers() -> JSONObjectBuilder { JSONObjectBuilder() }

    package static func object(_ members: consuming JSONObjectBuilder) -> JSONValue { .object(members.object) }
}
