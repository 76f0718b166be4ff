/// What the parser hands an object's members to, one at a time, so that an
/// object can be read into something other than a ``JSONObject``.
protocol JSONMemberCollector {
    /// What a member's name becomes before its value is parsed.
    associatedtype Name
    /// Turns a member's name into a `Name`; the bytes live only during the call.
    static func name(_ bytes: UTF8Span) -> Name
    /// Takes one member, in the order sent; a repeated name comes again.
    mutating func add(_ value: JSONValue, named name: Name)
}
