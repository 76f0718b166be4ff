/// A coding key for any object member or array index: what ``JSONValue``'s own
/// Codable conformance and the bridge's coding paths use.
package struct JSONCodingKey: CodingKey {
    package let stringValue: String
    package let intValue: Int?

    package init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    package init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }

    /// The key `super` that `superEncoder()` / `superDecoder()` use by convention.
    package static let superKey = JSONCodingKey(stringValue: "super")
}
