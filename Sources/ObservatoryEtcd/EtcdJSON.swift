import Foundation
import ObservatoryJSON

/// Reading and writing the gateway's JSON: grpc-gateway's mapping of etcd's
/// protobuf messages, where bytes are base64, 64-bit integers are strings, and
/// a field at its zero value (0, false, empty) is left out.
///
/// Built on ObservatoryWire's `JSONValue`, the project's one JSON layer: its parser
/// and writer work on bytes directly, where Foundation's `JSONSerialization` bridged
/// every request and answer through `NSDictionary` (45 % of a cluster node's CPU
/// under writes).
enum EtcdJSON {
    /// A decoded JSON object.
    typealias Object = JSONObject

    /// Parses `bytes` as one JSON object.
    static func object(from bytes: [UInt8]) throws(EtcdError) -> Object {
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse(bytes)
        } catch {
            throw EtcdError.invalidResponse("the body is not JSON: \(preview(of: bytes))")
        }
        guard case .object(let object) = parsed else {
            throw EtcdError.invalidResponse("the body is not a JSON object: \(preview(of: bytes))")
        }
        return object
    }

    /// An object of `members` in key order, leaving out the members whose value is
    /// null: a field at its zero value, which the gateway reads as absent anyway
    /// (`condition ? value : nil` is such a null). Key order keeps a request's text
    /// the same whichever order its builder lists the fields in.
    static func object(_ members: [(String, JSONValue)]) -> Object {
        var present = members.filter { !$0.1.isNull }
        present.sort { $0.0 < $1.0 }
        return Object(present)
    }

    /// Serializes `object` as compact JSON, members in their order.
    static func bytes(of object: Object) -> [UInt8] {
        JSONValue.object(object).encoded()
    }

    /// The field `name` of `object` as a 64-bit integer: a decimal string (the
    /// gateway's form), a JSON number (accepted too), or 0 when absent.
    static func integer(_ object: Object, _ name: String) throws(EtcdError) -> Int64 {
        try number(object, name, as: Int64.self, kind: "an integer")
    }

    /// The field `name` as an unsigned 64-bit identifier (cluster and member ids use
    /// the whole range, so above Int64's they come as decimal strings).
    static func identifier(_ object: Object, _ name: String) throws(EtcdError) -> UInt64 {
        try number(object, name, as: UInt64.self, kind: "an identifier")
    }

    /// The field `name` as a whole number of type `Number`, read from a decimal
    /// string or a JSON number; 0 when absent.
    private static func number<Number: FixedWidthInteger>(
        _ object: Object, _ name: String, as type: Number.Type, kind: String
    ) throws(EtcdError) -> Number {
        let text: String
        switch object[name] {
        case nil, .null:
            return 0
        case .string(let string):
            text = string
        case .integer(let integer):
            guard let value = Number(exactly: integer) else {
                throw EtcdError.invalidResponse("the field \(name) is not \(kind): \(integer)")
            }
            return value
        case .double(let double):
            guard let value = Number(exactly: double) else {
                throw EtcdError.invalidResponse("the field \(name) is not \(kind): \(double)")
            }
            return value
        default:
            throw EtcdError.invalidResponse("the field \(name) is not \(kind)")
        }
        guard let value = Number(text) else {
            throw EtcdError.invalidResponse("the field \(name) is not \(kind): \(text)")
        }
        return value
    }

    /// The boolean field `name`, false when absent (a number counts as its truth).
    static func boolean(_ object: Object, _ name: String) throws(EtcdError) -> Bool {
        switch object[name] {
        case nil, .null:
            return false
        case .bool(let flag):
            return flag
        case .integer(let number):
            return number != 0
        case .double(let number):
            return number != 0
        default:
            throw EtcdError.invalidResponse("the field \(name) is not a boolean")
        }
    }

    /// The string field `name`, empty when absent.
    static func string(_ object: Object, _ name: String) throws(EtcdError) -> String {
        switch object[name] {
        case nil, .null:
            return ""
        case .string(let text):
            return text
        default:
            throw EtcdError.invalidResponse("the field \(name) is not a string")
        }
    }

    /// The base64 field `name` as bytes, empty when absent.
    static func bytes(_ object: Object, _ name: String) throws(EtcdError) -> [UInt8] {
        let text = try string(object, name)
        if text.isEmpty { return [] }
        guard let data = Data(base64Encoded: text) else {
            throw EtcdError.invalidResponse("the field \(name) is not base64: \(text)")
        }
        return Array(data)
    }

    /// The object field `name`, or nil when absent.
    static func optionalObject(_ object: Object, _ name: String) throws(EtcdError) -> Object? {
        switch object[name] {
        case nil, .null:
            return nil
        case .object(let nested):
            return nested
        default:
            throw EtcdError.invalidResponse("the field \(name) is not an object")
        }
    }

    /// The array-of-objects field `name`, empty when absent.
    static func objects(_ object: Object, _ name: String) throws(EtcdError) -> [Object] {
        switch object[name] {
        case nil, .null:
            return []
        case .array(let elements):
            var objects: [Object] = []
            objects.reserveCapacity(elements.count)
            for element in elements {
                guard case .object(let nested) = element else {
                    throw EtcdError.invalidResponse("the field \(name) is not an array of objects")
                }
                objects.append(nested)
            }
            return objects
        default:
            throw EtcdError.invalidResponse("the field \(name) is not an array of objects")
        }
    }

    /// `bytes` in base64, as the gateway expects keys and values.
    static func base64(_ bytes: [UInt8]) -> JSONValue {
        .string(Data(bytes).base64EncodedString())
    }

    /// A 64-bit integer as the gateway's decimal string.
    static func text(_ value: Int64) -> JSONValue {
        .string(String(value))
    }

    /// The start of `bytes` as text, for error messages that show what came back.
    static func preview(of bytes: [UInt8]) -> String {
        let shown = String(decoding: bytes.prefix(200), as: UTF8.self)
        return bytes.count > 200 ? shown + "…" : shown
    }
}
