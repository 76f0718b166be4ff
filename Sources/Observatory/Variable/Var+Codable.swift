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
    /// The rule, so that neither form is misread as the other:
    /// - Data that does not decode as a bare `Value` is read as SwiftObserver's
    ///   form if it is an object whose one and only key is `storedValue`.
    /// - Data that decodes both ways (an object whose only key is
    ///   `storedValue`, its content a valid `Value` too) is read as the bare
    ///   value if decoding the bare value reads the `storedValue` key: a
    ///   dictionary, or a struct with a `storedValue` property. If it ignores
    ///   the key (a struct whose properties are all optional decodes from any
    ///   object), the data is SwiftObserver's form.
    /// - An object with keys besides `storedValue` is never SwiftObserver's
    ///   form.
    ///
    /// So whatever Observatory encoded reads back as it was, for any `Value`
    /// whose own `Codable` round-trips.
    ///
    /// - Throws: The error of decoding the bare value, when neither form
    ///   decodes: that is the form Observatory writes.
    public convenience init(from decoder: any Decoder) throws {
        self.init(try Self.decodeValue(from: decoder))
    }

    /// The value in either form, by the rule of ``init(from:)``.
    private static func decodeValue(from decoder: any Decoder) throws -> Value {
        let bareValue: Value
        do {
            // Through the decoder's own container, so that its strategies
            // (for dates, data, URLs) apply as they do to any value.
            bareValue = try decoder.singleValueContainer().decode(Value.self)
        } catch let bareValueError {
            guard let saved = try? decodeSwiftObserverForm(from: decoder) else { throw bareValueError }
            return saved
        }
        guard let saved = try? decodeSwiftObserverForm(from: decoder), !valueReadsStoredValueKey(in: decoder) else {
            return bareValue
        }
        return saved
    }

    /// Tells whether decoding a bare value from `decoder` reads its
    /// `storedValue` key; decoding once more is fine, as this runs only for
    /// data that could be either form.
    private static func valueReadsStoredValueKey(in decoder: any Decoder) -> Bool {
        let reading = KeyRecordingDecoder(decoder)
        _ = try? Value(from: reading)
        return reading.readKeys.contains(SwiftObserverCodingKey.storedValue.stringValue)
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
