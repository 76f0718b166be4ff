/// What ``JSONParser`` makes of the values it reads, so that one grammar serves
/// both building a tree (``JSONTreeMaker``) and only checking (``JSONValidationMaker``).
///
/// The parser checks every byte itself and calls the maker only with what it has
/// checked; a maker cannot accept or reject anything, so every maker sees the same
/// errors for the same bytes.
@usableFromInline
package protocol JSONValueMaker {
    /// What a value becomes.
    associatedtype Value
    /// What an array's elements gather in while it is read.
    associatedtype Elements
    /// What an object's members go to while it is read.
    associatedtype Members: JSONMemberCollector

    /// `null`.
    static func null() -> Value
    /// `true` or `false`.
    static func bool(_ value: Bool) -> Value
    /// Reads the string at the parser's position (its opening quote), with
    /// ``JSONParser/withStringContent(_:)`` or ``JSONParser/skipString()``.
    static func string(from parser: inout JSONParser) throws(JSONParseError) -> Value
    /// A number whose grammar the parser has checked, and which it has just moved past.
    static func number(_ number: JSONParser.NumberText, in parser: borrowing JSONParser) throws(JSONParseError)
        -> Value

    /// An array's elements before the first.
    static func makeElements() -> Elements
    /// Adds the next element.
    static func append(_ element: Value, to elements: inout Elements)
    /// The array once its closing bracket is read.
    static func array(_ elements: consuming Elements) -> Value

    /// An object's members before the first.
    static func makeMembers() -> Members
    /// The object once its closing brace is read.
    static func object(_ members: consuming Members) -> Value
}
