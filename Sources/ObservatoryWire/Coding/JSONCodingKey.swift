/// A coding key for any object member or array index: what ``JSONValue``'s own
/// Codable conformance and the bridge's coding paths use.
struct JSONCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }

    /// The key `super` that `superEncoder()` / `superDecoder()` use by convention.
    static let superKey = JSONCodingKey(stringValue: "super")
}
