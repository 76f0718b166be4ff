@testable import ObservatoryWire

/// The bytes as text, for comparing encodings with expected JSON strings.
func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self)
}

/// Parses JSON text with the default limits.
func json(_ text: String) throws -> JSONValue {
    try JSONValue.parse(Array(text.utf8))
}

/// The parse error for `bytes`, or nil if they parse.
func parseError(_ bytes: [UInt8], maxDepth: Int = JSONValue.defaultMaxDepth) -> JSONParseError? {
    do {
        _ = try JSONValue.parse(bytes, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

func parseError(_ text: String, maxDepth: Int = JSONValue.defaultMaxDepth) -> JSONParseError? {
    parseError(Array(text.utf8), maxDepth: maxDepth)
}

/// Nested arrays `[[…]]` `depth` deep.
func nestedArrays(depth: Int) -> String {
    String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
}
