import Foundation

/// Reading and writing the gateway's JSON: grpc-gateway's mapping of etcd's
/// protobuf messages, where bytes are base64, 64-bit integers are strings, and
/// a field at its zero value (0, false, empty) is left out.
enum EtcdJSON {
    /// A decoded JSON object.
    typealias Object = [String: Any]

    /// Parses `bytes` as one JSON object.
    static func object(from bytes: [UInt8]) throws(EtcdError) -> Object {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            throw EtcdError.invalidResponse("the body is not JSON: \(preview(of: bytes))")
        }
        guard let object = parsed as? Object else {
            throw EtcdError.invalidResponse("the body is not a JSON object: \(preview(of: bytes))")
        }
        return object
    }

    /// Serializes `object` (built only from strings, numbers, booleans, arrays and objects).
    static func bytes(of object: Object) -> [UInt8] {
        // Every value put in the object is a JSON type, so serialization cannot fail;
        // an empty object keeps the request well formed if it ever did.
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            return Array("{}".utf8)
        }
        return Array(data)
    }

    /// The field `name` of `object` as a 64-bit integer: a decimal string (the
    /// gateway's form), a JSON number (accepted too), or 0 when absent.
    static func integer(_ object: Object, _ name: String) throws(EtcdError) -> Int64 {
        switch object[name] {
        case nil, is NSNull:
            return 0
        case let text as String:
            guard let value = Int64(text) else {
                throw EtcdError.invalidResponse("the field \(name) is not an integer: \(text)")
            }
            return value
        case let number as NSNumber:
            return number.int64Value
        default:
            throw EtcdError.invalidResponse("the field \(name) is not an integer")
        }
    }

    /// The field `name` as an unsigned 64-bit identifier (cluster and member ids use the whole range).
    static func identifier(_ object: Object, _ name: String) throws(EtcdError) -> UInt64 {
        switch object[name] {
        case nil, is NSNull:
            return 0
        case let text as String:
            guard let value = UInt64(text) else {
                throw EtcdError.invalidResponse("the field \(name) is not an identifier: \(text)")
            }
            return value
        case let number as NSNumber:
            return number.uint64Value
        default:
            throw EtcdError.invalidResponse("the field \(name) is not an identifier")
        }
    }

    /// The boolean field `name`, false when absent.
    static func boolean(_ object: Object, _ name: String) throws(EtcdError) -> Bool {
        switch object[name] {
        case nil, is NSNull:
            return false
        case let flag as Bool:
            return flag
        case let number as NSNumber:
            return number.boolValue
        default:
            throw EtcdError.invalidResponse("the field \(name) is not a boolean")
        }
    }

    /// The string field `name`, empty when absent.
    static func string(_ object: Object, _ name: String) throws(EtcdError) -> String {
        switch object[name] {
        case nil, is NSNull:
            return ""
        case let text as String:
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
        case nil, is NSNull:
            return nil
        case let nested as Object:
            return nested
        default:
            throw EtcdError.invalidResponse("the field \(name) is not an object")
        }
    }

    /// The array-of-objects field `name`, empty when absent.
    static func objects(_ object: Object, _ name: String) throws(EtcdError) -> [Object] {
        switch object[name] {
        case nil, is NSNull:
            return []
        case let array as [Object]:
            return array
        default:
            throw EtcdError.invalidResponse("the field \(name) is not an array of objects")
        }
    }

    /// `bytes` in base64, as the gateway expects keys and values.
    static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    /// A 64-bit integer as the gateway's decimal string.
    static func text(_ value: Int64) -> String {
        String(value)
    }

    /// The start of `bytes` as text, for error messages that show what came back.
    static func preview(of bytes: [UInt8]) -> String {
        let shown = String(decoding: bytes.prefix(200), as: UTF8.self)
        return bytes.count > 200 ? shown + "…" : shown
    }
}
