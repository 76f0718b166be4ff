extension JSONValue {
    /// The JSON type with an article, for error messages ("a string", "an array").
    package var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer: return "an integer"
        case .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The JSON text, cut short if long, for error messages.
    package var abbreviatedDescription: String {
        let text = description
        return text.utf8.count <= 40 ? text : "\(text.prefix(40))…"
    }
}
