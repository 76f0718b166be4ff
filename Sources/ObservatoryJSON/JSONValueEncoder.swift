/// An `Encoder` that builds a ``JSONValue`` directly, without text in between.
///
/// Internal: reached through ``JSONValue/init(encoding:)``. Containers write into
/// ``EncodingSlot`` references, because an encoder's containers outlive the calls
/// that create them and must all add to the same tree.
package struct JSONValueEncoder: Encoder {
    package let slot: EncodingSlot
    package let codingPath: [any CodingKey]
    package var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Encodes `value` into `slot`; a ``JSONValue`` is stored as it is (keeping object order).
    package static func encode<Value: Encodable>(_ value: Value, into slot: EncodingSlot, codingPath: [any CodingKey])
        throws
    {
        if let json = value as? JSONValue {
            slot.store(json)
            return
        }
        try value.encode(to: JSONValueEncoder(slot: slot, codingPath: codingPath))
    }

    package func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        slot.becomeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(slot: slot, codingPath: codingPath))
    }

    package func unkeyedContainer() -> any UnkeyedEncodingContainer {
        slot.becomeArray()
        return UnkeyedContainer(slot: slot, codingPath: codingPath)
    }

    package func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(slot: slot, codingPath: codingPath)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    package let slot: EncodingSlot
    package let codingPath: [any CodingKey]

    package mutating func encodeNil(forKey key: Key) throws {
        slot.appendMember(key.stringValue).store(.null)
    }

    /// Serves every typed `encode(_:forKey:)`: primitives reach the single-value container.
    package mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try JSONValueEncoder.encode(value, into: slot.appendMember(key.stringValue), codingPath: codingPath + [key])
    }

    package mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        encoder(at: key).container(keyedBy: keyType)
    }

    package mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder(at: key).unkeyedContainer()
    }

    package mutating func superEncoder() -> any Encoder {
        JSONValueEncoder(
            slot: slot.appendMember(JSONCodingKey.superKey.stringValue),
            codingPath: codingPath + [JSONCodingKey.superKey])
    }

    package mutating func superEncoder(forKey key: Key) -> any Encoder {
        encoder(at: key)
    }

    private func encoder(at key: Key) -> JSONValueEncoder {
        JSONValueEncoder(slot: slot.appendMember(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    package let slot: EncodingSlot
    package let codingPath: [any CodingKey]
    package var count: Int { slot.elementCount }

    package mutating func encodeNil() throws {
        slot.appendElement().store(.null)
    }

    /// Serves every typed `encode(_:)`: primitives reach the single-value container.
    package mutating func encode<Value: Encodable>(_ value: Value) throws {
        let path = codingPath + [JSONCodingKey(intValue: count)]
        try JSONValueEncoder.encode(value, into: slot.appendElement(), codingPath: path)
    }

    package mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<
            NestedKey
        >
    {
        nextEncoder().container(keyedBy: keyType)
    }

    package mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        nextEncoder().unkeyedContainer()
    }

    package mutating func superEncoder() -> any Encoder {
        nextEncoder()
    }

    private func nextEncoder() -> JSONValueEncoder {
        let path = codingPath + [JSONCodingKey(intValue: count)]
        return JSONValueEncoder(slot: slot.appendElement(), codingPath: path)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    package let slot: EncodingSlot
    package let codingPath: [any CodingKey]

    package mutating func encodeNil() throws { slot.store(.null) }
    package mutating func encode(_ value: Bool) throws { slot.store(.bool(value)) }
    package mutating func encode(_ value: String) throws { slot.store(.string(value)) }
    package mutating func encode(_ value: Double) throws { slot.store(.double(try finite(value))) }
    // Through its shortest decimal text, so Float(0.1) becomes 0.1, not 0.10000000149011612.
    package mutating func encode(_ value: Float) throws {
        slot.store(.double(try finite(Double(value.description) ?? Double(value))))
    }
    package mutating func encode(_ value: Int) throws { try encodeInteger(value) }
    package mutating func encode(_ value: Int8) throws { try encodeInteger(value) }
    package mutating func encode(_ value: Int16) throws { try encodeInteger(value) }
    package mutating func encode(_ value: Int32) throws { try encodeInteger(value) }
    package mutating func encode(_ value: Int64) throws { try encodeInteger(value) }
    package mutating func encode(_ value: UInt) throws { try encodeInteger(value) }
    package mutating func encode(_ value: UInt8) throws { try encodeInteger(value) }
    package mutating func encode(_ value: UInt16) throws { try encodeInteger(value) }
    package mutating func encode(_ value: UInt32) throws { try encodeInteger(value) }
    package mutating func encode(_ value: UInt64) throws { try encodeInteger(value) }

    package mutating func encode<Value: Encodable>(_ value: Value) throws {
        try JSONValueEncoder.encode(value, into: slot, codingPath: codingPath)
    }

    private func encodeInteger(_ value: some FixedWidthInteger) throws {
        guard let integer = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "\(value) is outside the Int64 range that JSON values carry exactly"
                ))
        }
        slot.store(.integer(integer))
    }

    private func finite(_ value: Double) throws -> Double {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "\(value) cannot be written as JSON, which has no NaN or infinity"
                ))
        }
        return value
    }
}
