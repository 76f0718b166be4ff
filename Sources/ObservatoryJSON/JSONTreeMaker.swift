/// Makes ``JSONValue`` trees: what `JSONValue.parse(_:maxDepth:)` returns.
@usableFromInline
package enum JSONTreeMaker: JSONValueMaker {
    @inlinable
    package static func null() -> JSONValue { .null }

    @inlinable
    package static func bool(_ value: Bool) -> JSONValue { .bool(value) }

    @inlinable
    package static func string(from parser: inout JSONParser) throws(JSONParseError) -> JSONValue {
        try parser.withStringContent { .string(String(copying: $0)) }
    }

    @inlinable
    package static func number(_ number: JSONParser.NumberText, in parser: borrowing JSONParser) throws(JSONParseError)
        -> JSONValue
    {
        try parser.numberValue(of: number)
    }

    @inlinable
    package static func makeElements() -> [JSONValue] { [] }

    @inlinable
    package static func append(_ element: JSONValue, to elements: inout [JSONValue]) { elements.append(element) }

    @inlinable
    package static func array(_ elements: consuming [JSONValue]) -> JSONValue { .array(elements) }

    @inlinable
    package static func makeMembers() -> JSONObjectBuilder { JSONObjectBuilder() }

    @inlinable
    package static func object(_ members: consuming JSONObjectBuilder) -> JSONValue { .object(members.object) }
}
