// Literals for ``EncodedJSON``, as ``JSONValue`` has them: a program that embeds
// the server, or a test, writes `store.set("a", to: 1, by: author)` and gets the
// value's compact encoding.

extension EncodedJSON: ExpressibleByBooleanLiteral {
    /// `true` or `false`.
    public init(booleanLiteral value: Bool) { self.init(.bool(value)) }
}

extension EncodedJSON: ExpressibleByIntegerLiteral {
    /// An integer, written without a fraction.
    public init(integerLiteral value: Int64) { self.init(.integer(value)) }
}

extension EncodedJSON: ExpressibleByFloatLiteral {
    /// A number with a fraction, written as ``JSONValue`` writes a double.
    public init(floatLiteral value: Double) { self.init(.double(value)) }
}

extension EncodedJSON: ExpressibleByStringLiteral {
    /// A string, escaped as ``JSONValue`` escapes it.
    public init(stringLiteral value: String) { self.init(.string(value)) }
}

extension EncodedJSON: ExpressibleByArrayLiteral {
    /// An array of values.
    public init(arrayLiteral elements: JSONValue...) { self.init(.array(elements)) }
}

extension EncodedJSON: ExpressibleByDictionaryLiteral {
    /// An object, its members in the order written.
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(.object(JSONObject(elements))) }
}

extension EncodedJSON {
    /// `null`. Not a nil literal: `EncodedJSON?` would then read `nil` two ways.
    public static let null = EncodedJSON(.null)
}
