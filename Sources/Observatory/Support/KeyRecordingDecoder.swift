/// A decoder that passes everything through to another one and records which
/// keys of the top-level object the decoded type read.
///
/// `Var` uses it to tell whether a value decoded from `{"storedValue": …}`
/// took that key into account, or decoded by ignoring it (a struct whose
/// properties are all optional decodes from any object) and so is really
/// SwiftObserver's wrapper around the value.
final class KeyRecordingDecoder: Decoder {
    private let base: any Decoder
    /// The string values of the top-level keys that were read.
    private(set) var readKeys: Set<String> = []

    init(_ base: any Decoder) {
        self.base = base
    }

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let container = try base.container(keyedBy: type)
        return KeyedDecodingContainer(KeyRecordingContainer(base: container) { [self] key in readKeys.insert(key) })
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try base.unkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try base.singleValueContainer()
    }
}

/// A keyed container that reports every key whose content is read, then reads
/// it from the container it wraps.
private struct KeyRecordingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>
    let record: (String) -> Void

    var codingPath: [any CodingKey] { base.codingPath }
    var allKeys: [Key] { base.allKeys }

    func contains(_ key: Key) -> Bool { base.contains(key) }

    private func read(_ key: Key) -> Key {
        record(key.stringValue)
        return key
    }

    func decodeNil(forKey key: Key) throws -> Bool { try base.decodeNil(forKey: read(key)) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try base.decode(type, forKey: read(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try base.decode(type, forKey: read(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try base.decode(type, forKey: read(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try base.decode(type, forKey: read(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try base.decode(type, forKey: read(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try base.decode(type, forKey: read(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try base.decode(type, forKey: read(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try base.decode(type, forKey: read(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try base.decode(type, forKey: read(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try base.decode(type, forKey: read(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try base.decode(type, forKey: read(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try base.decode(type, forKey: read(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try base.decode(type, forKey: read(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try base.decode(type, forKey: read(key)) }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try base.decode(type, forKey: read(key))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try base.nestedContainer(keyedBy: type, forKey: read(key))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try base.nestedUnkeyedContainer(forKey: read(key))
    }

    func superDecoder() throws -> any Decoder { try base.superDecoder() }
    func superDecoder(forKey key: Key) throws -> any Decoder { try base.superDecoder(forKey: read(key)) }
}
