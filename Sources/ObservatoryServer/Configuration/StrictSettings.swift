/// Reads one JSON object of settings strictly: an unknown key or a value of the
/// wrong type is a `ConfigurationError` naming the setting by its dotted path.
///
/// `JSONDecoder` alone would ignore unknown keys and report type errors as coding
/// paths; the operator needs the name as it appears in the file.
struct StrictSettings {
    private let container: KeyedDecodingContainer<SettingKey>
    private let path: String

    /// Opens the object at `decoder` and rejects keys not in `known`.
    init(_ decoder: any Decoder, known: [String]) throws {
        path = Self.dottedPath(decoder.codingPath)
        do {
            container = try decoder.container(keyedBy: SettingKey.self)
        } catch {
            throw ConfigurationError.wrongType(setting: path.isEmpty ? "(top level)" : path, expected: "an object")
        }
        for key in container.allKeys where !known.contains(key.stringValue) {
            throw ConfigurationError.unknownSetting(name(of: key.stringValue))
        }
    }

    /// The value of `key` if present; `expected` describes the type for the error.
    func read<Value: Decodable>(_ key: String, as type: Value.Type, expected: String) throws -> Value? {
        let codingKey = SettingKey(key)
        guard container.contains(codingKey) else { return nil }
        do {
            return try container.decode(Value.self, forKey: codingKey)
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError.wrongType(setting: name(of: key), expected: expected)
        }
    }

    /// The dotted name of `key` inside this object.
    func name(of key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    static func dottedPath(_ codingPath: [any CodingKey]) -> String {
        var result = ""
        for key in codingPath {
            if let index = key.intValue {
                result += "[\(index)]"
            } else {
                result += result.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return result
    }
}
