extension Var: Codable where Value: Codable {
    /// Encodes the value alone, so a type holding `Var`s encodes like one
    /// holding plain values, and the server stores what clients send.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    /// Decodes a variable from its value alone, or from the form SwiftObserver
    /// saved, `{"storedValue": value}`, so that data saved by SwiftObserver
    /// apps loads.
    ///
    /// The bare value wins: only when the data does not decode as a `Value`,
    /// and is an object whose one and only key is `storedValue`, is that key's
    /// content decoded instead. So a value that is itself an object with a
    /// `storedValue` key (a dictionary, or a struct with such a property) reads
    /// as Observatory wrote it, and an object with more keys than
    /// `storedValue` is never mistaken for SwiftObserver's wrapper.
    ///
    /// - Throws: The error of decoding the bare value, when neither form
    ///   decodes: that is the form Observatory writes.
    public convenience init(from decoder: any Decoder) throws {
        self.init(try Self.decodeValue(from: decoder))
    }

    /// The value in either form, the bare one first.
    private static func decodeValue(from decoder: any Decoder) throws -> Value {
        do {
            return try decoder.singleValueContainer().decode(Value.self)
        } catch let bareValueError {
            guard let saved = try? decodeSwiftObserverForm(from: decoder) else { throw bareValueError }
            return saved
        }
    }

    /// The value inside SwiftObserver's `{"storedValue": value}`, or an error
    /// when the data has any other shape.
    private static func decodeSwiftObserverForm(from decoder: any Decoder) throws -> Value {
        let container = try decoder.container(keyedBy: SwiftObserverCodingKey.self)
        guard container.allKeys.count == 1, let key = container.allKeys.first, key == .storedValue else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath,
                    debugDescription: "Neither a bare value nor SwiftObserver's {\"storedValue\": value}"))
        }
        return try container.decode(Value.self, forKey: key)
    }
}

/// Any key of an object, so that SwiftObserver's wrapper can be told apart
/// from an object that merely has a `storedValue` key among others.
private struct SwiftObserverCodingKey: CodingKey, Equatable {
    /// The one key of SwiftObserver's encoding of a `Var`.
    static let storedValue = SwiftObserverCodingKey(stringValue: "storedValue")

    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}
