import Foundation
import Glibc

/// A JSON value normalized from what `JSONSerialization` returns, so that tests can
/// compare values structurally; numbers compare by value (`2.0` equals `2`).
enum JSONTree: Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONTree])
    case object([String: JSONTree])

    private static let booleanType = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// Normalizes a `JSONSerialization` result.
    init(_ any: Any) {
        switch any {
        case is NSNull:
            self = .null
        case let string as String:
            self = .string(string)
        case let number as NSNumber:
            self = Self.number(number)
        case let array as [Any]:
            self = .array(array.map(JSONTree.init))
        case let object as [String: Any]:
            self = .object(object.mapValues(JSONTree.init))
        default:
            self = .string("<unexpected \(type(of: any))>")
        }
    }

    /// Parses JSON text (any value, not only objects); `nil` if it is not JSON.
    init?(json text: String) {
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
        else { return nil }
        self.init(parsed)
    }

    private static func number(_ number: NSNumber) -> JSONTree {
        if ObjectIdentifier(type(of: number)) == booleanType { return .bool(number.boolValue) }
        if let integer = Int64(number.stringValue) { return .integer(integer) }
        return .double(number.doubleValue)
    }

    static func == (left: JSONTree, right: JSONTree) -> Bool {
        switch (left, right) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.integer(let a), .double(let b)), (.double(let b), .integer(let a)): Double(exactly: a) == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .integer(let value): "\(value)"
        case .double(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .array(let values): "[" + values.map(\.description).joined(separator: ",") + "]"
        case .object(let fields):
            "{" + fields.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
        }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    var isNull: Bool { self == .null }
    var array: [JSONTree]? { if case .array(let values) = self { values } else { nil } }
    var object: [String: JSONTree]? { if case .object(let fields) = self { fields } else { nil } }

    /// A field of an object (`nil` for other values or a missing field).
    subscript(field: String) -> JSONTree? { object?[field] }
}
