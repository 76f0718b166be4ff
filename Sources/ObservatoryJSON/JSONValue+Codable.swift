extension JSONValue: Codable {
    /// Encodes through any `Encoder` (for example Foundation's `JSONEncoder`): objects
    /// as keyed containers, arrays as unkeyed, scalars as single values.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                try container.encode(element)
            }
        case .object(let object):
            var container = encoder.container(keyedBy: JSONCodingKey.self)
            for member in object.members {
                try container.encode(member.value, forKey: JSONCodingKey(stringValue: member.key))
            }
        default:
            var container = encoder.singleValueContainer()
            switch self {
            case .bool(let bool): try container.encode(bool)
            case .integer(let integer): try container.encode(integer)
            case .double(let double): try container.encode(double)
            case .string(let string): try container.encode(string)
            default: try container.encodeNil()
            }
        }
    }

    /// Decodes from any `Decoder`: whatever shape the data has becomes the matching case.
    /// Object order is that of the decoder's `allKeys`.
    public init(from decoder: any Decoder) throws {
        if let scalar = Self.decodeScalar(from: decoder) {
            self = scalar
        } else if let container = try? decoder.container(keyedBy: JSONCodingKey.self) {
            var members: [(String, JSONValue)] = []
            for key in container.allKeys {
                members.append((key.stringValue, try container.decode(JSONValue.self, forKey: key)))
            }
            self = .object(JSONObject(members))
        } else {
            var container = try decoder.unkeyedContainer()
            var elements: [JSONValue] = []
            while !container.isAtEnd {
                elements.append(try container.decode(JSONValue.self))
            }
            self = .array(elements)
        }
    }

    private static func decodeScalar(from decoder: any Decoder) -> JSONValue? {
        guard let container = try? decoder.singleValueContainer() else { return nil }
        if container.decodeNil() { return .null }
        if let bool = try? container.decode(Bool.self) { return .bool(bool) }
        if let integer = try? container.decode(Int64.self) { return .integer(integer) }
        if let double = try? container.decode(Double.self) { return .double(double) }
        if let string = try? container.decode(String.self) { return .string(string) }
        return nil
    }
}

extension JSONValue {
    /// The JSON value of any `Encodable`, built directly (no JSON text in between).
    ///
    /// This is how a local `Var<Value: Codable>` becomes a value to send. Integers
    /// stay exact (an out-of-Int64 `UInt64` is an error), doubles keep their value,
    /// a `JSONValue` inside is taken as it is. Nothing encoded counts as `{}`.
    ///
    /// - Throws: `EncodingError.invalidValue` for NaN, infinity or an integer
    ///   outside Int64, or whatever the value's own `encode(to:)` throws.
    public init(encoding value: some Encodable) throws {
        let slot = EncodingSlot()
        try JSONValueEncoder.encode(value, into: slot, codingPath: [])
        self = slot.value
    }

    /// Decodes a `Decodable` from this value, directly (no JSON text in between).
    ///
    /// This is how a remote value becomes a local `Var<Value: Codable>`'s value.
    /// Numbers convert only when exact (an `Int` from `2.0` works, from `2.5` does not).
    ///
    /// - Throws: `DecodingError` with the coding path of the part that does not fit.
    public func decode<Value: Decodable>(_ type: Value.Type = Value.self) throws -> Value {
        try JSONValueDecoder.decode(type, from: self, codingPath: [])
    }
}
