/// A `Decoder` that reads a ``JSONValue`` directly, without text in between.
///
/// Internal: reached through ``JSONValue/decode(_:)``. Numbers convert when the
/// value fits exactly (an Int8 from `7`, an Int from `2.0`, a Double from `3`);
/// anything else is a `DecodingError` with the coding path.
package struct JSONValueDecoder: Decoder {
    package let value: JSONValue
    package let codingPath: [any CodingKey]
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Decodes a `Type` from `value`; a ``JSONValue`` is returned as it is.
    package static func decode<Value: Decodable>(_ type: Value.Type, from value: JSONValue, codingPath: [any CodingKey])
        throws
        -> Value
    {
        // Only JSONValue itself is taken as it is; `JSONValue?` must still map null to nil.
        if Value.self == JSONValue.self, let json = value as? Value {
            return json
        }
        return try Value(from: JSONValueDecoder(value: value, codingPath: codingPath))
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw mismatch(JSONObject.self, "an object")
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath))
    }

    package func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw mismatch([JSONValue].self, "an array")
        }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    package func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(value: value, codingPath: codingPath)
    }

    private func mismatch(_ type: Any.Type, _ expected: String) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "expected \(expected), found \(value.kindDescription)"
            ))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// Built once, so decoding a large object is linear, not quadratic.
    package let members: [String: JSONValue]
    package let allKeys: [Key]
    package let codingPath: [any CodingKey]

    package init(object: JSONObject, codingPath: [any CodingKey]) {
        members = Dictionary(object.members, uniquingKeysWith: { _, last in last })
        allKeys = object.members.compactMap { Key(stringValue: $0.key) }
        self.codingPath = codingPath
    }

    package func contains(_ key: Key) -> Bool {
        members[key.stringValue] != nil
    }

    package func decodeNil(forKey key: Key) throws -> Bool {
        try member(key).isNull
    }

    /// Serves every typed `decode(_:forKey:)`: primitives reach the single-value container.
    package func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try JSONValueDecoder.decode(type, from: member(key), codingPath: codingPath + [key])
    }

    package func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder(at: key).container(keyedBy: type)
    }

    package func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(at: key).unkeyedContainer()
    }

    package func superDecoder() throws -> any Decoder {
        let key = JSONCodingKey.superKey
        return JSONValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
    }

    package func superDecoder(forKey key: Key) throws -> any Decoder {
        try decoder(at: key)
    }

    private func decoder(at key: Key) throws -> JSONValueDecoder {
        JSONValueDecoder(value: try member(key), codingPath: codingPath + [key])
    }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "the object has no member \"\(key.stringValue)\""
                ))
        }
        return value
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    package let elements: [JSONValue]
    package let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    package init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    package var count: Int? { elements.count }
    package var isAtEnd: Bool { currentIndex >= elements.count }

    package mutating func decodeNil() throws -> Bool {
        guard try peek(Never.self).isNull else { return false }
        currentIndex += 1
        return true
    }

    /// Serves every typed `decode(_:)`: primitives reach the single-value container.
    package mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        let value = try JSONValueDecoder.decode(type, from: peek(type), codingPath: elementPath)
        currentIndex += 1
        return value
    }

    package mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<
            NestedKey
        >
    {
        try nextDecoder(JSONObject.self).container(keyedBy: type)
    }

    package mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try nextDecoder([JSONValue].self).unkeyedContainer()
    }

    package mutating func superDecoder() throws -> any Decoder {
        try nextDecoder(JSONValue.self)
    }

    private var elementPath: [any CodingKey] {
        codingPath + [JSONCodingKey(intValue: currentIndex)]
    }

    private mutating func nextDecoder(_ type: Any.Type) throws -> JSONValueDecoder {
        let decoder = JSONValueDecoder(value: try peek(type), codingPath: elementPath)
        currentIndex += 1
        return decoder
    }

    private func peek(_ type: Any.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: elementPath,
                    debugDescription: "the array has only \(elements.count) elements"
                ))
        }
        return elements[currentIndex]
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    package let value: JSONValue
    package let codingPath: [any CodingKey]

    package func decodeNil() -> Bool { value.isNull }

    package func decode(_ type: Bool.Type) throws -> Bool {
        guard let bool = value.boolValue else { throw mismatch(type, "a boolean") }
        return bool
    }

    package func decode(_ type: String.Type) throws -> String {
        guard let string = value.stringValue else { throw mismatch(type, "a string") }
        return string
    }

    package func decode(_ type: Double.Type) throws -> Double {
        guard let double = value.doubleValue else { throw mismatch(type, "a number") }
        return double
    }

    package func decode(_ type: Float.Type) throws -> Float {
        let double = try decode(Double.self)
        let float = Float(double)
        guard float.isFinite else { throw outOfRange(type) }
        return float
    }

    package func decode(_ type: Int.Type) throws -> Int { try decodeInteger(type) }
    package func decode(_ type: Int8.Type) throws -> Int8 { try decodeInteger(type) }
    package func decode(_ type: Int16.Type) throws -> Int16 { try decodeInteger(type) }
    package func decode(_ type: Int32.Type) throws -> Int32 { try decodeInteger(type) }
    package func decode(_ type: Int64.Type) throws -> Int64 { try decodeInteger(type) }
    package func decode(_ type: UInt.Type) throws -> UInt { try decodeInteger(type) }
    package func decode(_ type: UInt8.Type) throws -> UInt8 { try decodeInteger(type) }
    package func decode(_ type: UInt16.Type) throws -> UInt16 { try decodeInteger(type) }
    package func decode(_ type: UInt32.Type) throws -> UInt32 { try decodeInteger(type) }
    package func decode(_ type: UInt64.Type) throws -> UInt64 { try decodeInteger(type) }

    package func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try JSONValueDecoder.decode(type, from: value, codingPath: codingPath)
    }

    /// An integer of type `Integer` equal to the number, if there is one.
    private func decodeInteger<Integer: FixedWidthInteger>(_ type: Integer.Type) throws -> Integer {
        let converted: Integer?
        switch value {
        case .integer(let integer): converted = Integer(exactly: integer)
        case .double(let double): converted = Integer(exactly: double)
        default: throw mismatch(type, "an integer")
        }
        guard let converted else { throw outOfRange(type) }
        return converted
    }

    private func mismatch(_ type: Any.Type, _ expected: String) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "expected \(expected), found \(value.kindDescription)"
            ))
    }

    private func outOfRange(_ type: Any.Type) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "\(value.abbreviatedDescription) does not fit exactly in \(type)"
            ))
    }
}
