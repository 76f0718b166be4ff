import Foundation
import ObservatoryWire

/// Checks that a configuration or tokens file is JSON, with the project's own
/// parser (the one that reads every frame), before its settings are read.
///
/// The parser says at which byte a file goes wrong; this turns that into a line
/// and a column and a hint for the usual slips, a missing comma and a trailing
/// one, so the operator can go straight to the place:
///
///     configuration file 'my.json' is not valid JSON: line 3, column 3: unexpected byte
///     '"' (a comma is missing at the end of the line before, or before this)
///
/// Trailing commas are refused, as everywhere the project reads JSON.
enum ConfigurationFileSyntax {
    /// The file's JSON, read by the project's parser; throws
    /// `ConfigurationError.malformedFile` naming the place of the first error.
    static func parse(_ data: Data, path: String) throws -> JSONValue {
        let bytes = Array(data)
        do {
            return try JSONValue.parse(bytes)
        } catch {
            throw ConfigurationError.malformedFile(path: path, reason: describe(error, in: bytes))
        }
    }

    /// `line L, column C: what (hint)`.
    static func describe(_ error: JSONParseError, in bytes: [UInt8]) -> String {
        let offset = min(max(error.offset, 0), bytes.count)
        let before = bytes[..<offset]
        let line = before.count(where: { $0 == UInt8(ascii: "\n") }) + 1
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let column = String(decoding: bytes[lineStart..<offset], as: UTF8.self).unicodeScalars.count + 1
        var text = "line \(line), column \(column): \(error.kind)"
        if offset < bytes.count, error.kind == .unexpectedByte {
            text += " '\(String(decoding: [bytes[offset]], as: UTF8.self))'"
        } else if !error.detail.isEmpty {
            text += " (\(error.detail))"
        }
        if let hint = hint(at: offset, in: bytes) { text += " (\(hint))" }
        return text
    }

    /// What the usual slip at this place is, if it looks like one.
    private static func hint(at offset: Int, in bytes: [UInt8]) -> String? {
        guard offset < bytes.count,
            let previous = bytes[..<offset].last(where: { !" \t\r\n".utf8.contains($0) })
        else { return nil }
        let current = bytes[offset]
        if previous == UInt8(ascii: ","), current == UInt8(ascii: "}") || current == UInt8(ascii: "]") {
            return "a comma before a closing \(current == UInt8(ascii: "}") ? "}" : "]") is not allowed: remove it"
        }
        let endsAValue = "\"}]0123456789el".utf8.contains(previous)
        let startsAValue = "\"{[-0123456789tfn".utf8.contains(current)
        if endsAValue, startsAValue {
            return "a comma is missing before this, perhaps at the end of the line before"
        }
        return nil
    }
}
