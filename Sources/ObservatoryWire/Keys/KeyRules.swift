/// The rules for keys and prefixes (PROTOCOL.md, "Values, keys, versions, authors").
///
/// A key is 1–256 bytes of UTF-8 with no control characters and no whitespace. A
/// prefix follows the same rules but may be empty.
///
/// - Control characters: Unicode general category Cc, that is U+0000–U+001F and
///   U+007F–U+009F.
/// - Whitespace: every scalar with the Unicode `White_Space` property: U+0009–U+000D,
///   U+0020, U+0085, U+00A0, U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F
///   and U+3000. Invisible format characters that are not `White_Space` (such as
///   U+200B or U+FEFF) are allowed.
public enum KeyRules {
    /// The longest key or prefix, in UTF-8 bytes.
    public static let maxBytes = 256

    /// Throws `invalid_key` unless `key` is a valid key.
    public static func validate(key: String) throws(WireError) {
        try validate(key, kind: "key", allowsEmpty: false)
    }

    /// Throws `invalid_key` unless `prefix` is a valid prefix (a key that may be empty).
    public static func validate(prefix: String) throws(WireError) {
        try validate(prefix, kind: "prefix", allowsEmpty: true)
    }

    private static func validate(_ text: String, kind: String, allowsEmpty: Bool) throws(WireError) {
        let rule = allowsEmpty
            ? "\(kind) must be at most \(maxBytes) bytes of UTF-8 without whitespace or control characters"
            : "\(kind) must be 1–\(maxBytes) bytes of UTF-8 without whitespace or control characters"
        let byteCount = text.utf8.count
        guard allowsEmpty || byteCount > 0 else {
            throw WireError(code: .invalidKey, message: "\(rule): got an empty \(kind)")
        }
        guard byteCount <= maxBytes else {
            throw WireError(code: .invalidKey, message: "\(rule): got \(byteCount) bytes")
        }
        if let (scalar, offset) = firstForbiddenScalar(in: text) {
            let name = scalar.properties.isWhitespace ? "whitespace" : "control character"
            throw WireError(
                code: .invalidKey,
                message: "\(rule): got \(name) U+\(hex(scalar.value)) at byte \(offset)"
            )
        }
    }

    /// The first control or whitespace scalar and its UTF-8 offset. Printable ASCII,
    /// the usual case, is decided without looking up Unicode properties.
    private static func firstForbiddenScalar(in text: String) -> (Unicode.Scalar, Int)? {
        var offset = 0
        for scalar in text.unicodeScalars {
            defer { offset += UTF8.width(scalar) }
            if scalar.value > 0x20 && scalar.value < 0x7F { continue }
            if scalar.properties.generalCategory == .control || scalar.properties.isWhitespace {
                return (scalar, offset)
            }
        }
        return nil
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
