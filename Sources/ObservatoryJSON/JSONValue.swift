/// A JSON value as the protocol carries it: what a key holds on the server.
///
/// Numbers keep the distinction the protocol makes: an integer literal in the
/// Int64 range is ``integer(_:)`` and stays exact; every other number is a
/// ``double(_:)`` that round-trips through its shortest decimal form.
///
/// Equality follows JSON's meaning, not the spelling:
/// - numbers compare by value, so `.integer(2) == .double(2.0)` (and hash alike);
/// - objects compare as unordered maps, so key order does not matter;
/// - everything else compares structurally.
///
/// Objects remember the order their keys were sent in, and encoding writes them in
/// that order, so what a client sent is what other clients see.
///
/// ```swift
/// let value = try JSONValue.parse(Array(#"{"on":true,"level":3}"#.utf8))
/// value["level"]?.integerValue   // 3
/// value.encoded()                // the same bytes back
/// ```
public enum JSONValue: Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without fraction or exponent that fits in Int64.
    case integer(Int64)
    /// Any other number. Never NaN or infinite when parsed; non-finite doubles
    /// built in code are encoded as `null`, because JSON cannot express them.
    case double(Double)
    /// A string of any Unicode scalars.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object: key/value pairs in the order they were sent, keys unique.
    case object(JSONObject)
}

// MARK: - Accessors

extension JSONValue {
    /// True for ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The Boolean, if this is ``bool(_:)``.
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The string, if this is ``string(_:)``.
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The number as an exact Int64: an ``integer(_:)``, or a ``double(_:)`` that is
    /// whole and in range (the protocol lets `2.0` stand for `2`).
    public var integerValue: Int64? {
        switch self {
        case .integer(let value):
            return value
        case .double(let value):
            return JSONNumber.exactInteger(value)
        default:
            return nil
        }
    }

    /// The number as a Double (an integer converts, possibly rounding beyond 2^53).
    public var doubleValue: Double? {
        switch self {
        case .integer(let value):
            return Double(value)
        case .double(let value):
            return value
        default:
            return nil
        }
    }

    /// The elements, if this is ``array(_:)``.
    public var arrayValue: [JSONValue]? {
        guard case .array(let value) = self else { return nil }
        return value
    }

    /// The object, if this is ``object(_:)``.
    public var objectValue: JSONObject? {
        guard case .object(let value) = self else { return nil }
        return value
    }

    /// The value stored under `key` if this is an object holding it, else `nil`.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The element at `index` if this is an array long enough, else `nil`.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

// MARK: - Equality and hashing

extension JSONValue: Hashable {
    /// JSON equality: numbers by value, objects regardless of key order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case (.bool(let left), .bool(let right)):
            return left == right
        case (.string(let left), .string(let right)):
            return left == right
        case (.array(let left), .array(let right)):
            return left == right
        case (.object(let left), .object(let right)):
            return left == right
        case (.integer, _), (.double, _):
            guard let left = JSONNumber(lhs), let right = JSONNumber(rhs) else { return false }
            return left == right
        default:
            return false
        }
    }

    /// Hashes so that values equal under ``==(_:_:)`` hash alike.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .integer, .double:
            hasher.combine(2 as UInt8)
            JSONNumber(self)?.hash(into: &hasher)
        case .string(let value):
            hasher.combine(3 as UInt8)
            hasher.combine(value)
        case .array(let value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        case .object(let value):
            hasher.combine(5 as UInt8)
            hasher.combine(value)
        }
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral {
    /// `nil` is ``null``.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// `true` / `false`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// An integer literal is ``integer(_:)``.
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A float literal is ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string literal is ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An array literal is ``array(_:)``.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// A dictionary literal is an ``object(_:)`` in literal order; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text.
    public var description: String {
        String(decoding: encoded(), as: UTF8.self)
    }
}
