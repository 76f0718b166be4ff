/// The rules for keys and prefixes (docs/protocol.md, "Values, keys, versions, authors").
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
        let byteCount = text.utf8.count
        guard allowsEmpty || byteCount > 0 else {
            throw invalid(kind, allowsEmpty: allowsEmpty, "got an empty \(kind)")
        }
        guard byteCount <= maxBytes else {
            throw invalid(kind, allowsEmpty: allowsEmpty, "got \(byteCount) bytes")
        }
        if let (scalar, offset) = firstForbiddenScalar(in: text) {
            let name = scalar.properties.isWhitespace ? "whitespace" : "control character"
            throw invalid(kind, allowsEmpty: allowsEmpty, "got \(name) U+\(hex(scalar.value)) at byte \(offset)")
        }
    }

    /// The error for a key or prefix that breaks the rule: the rule, then what was found.
    /// (Built only on failure: every request with a key is validated.)
    private static func invalid(_ kind: String, allowsEmpty: Bool, _ found: String) -> WireError {
        let length = allowsEmpty ? "at most \(maxBytes)" : "1–\(maxBytes)"
        return WireError(
            code: .invalidKey,
            message: "\(kind) must be \(length) bytes of UTF-8 without whitespace or control characters: \(found)")
    }

    /// The first control or whitespace scalar and its UTF-8 offset. Printable ASCII,
    /// the usual case, is decided without looking up Unicode properties.
    private static func firstForbiddenScalar(in text: String) -> (Unicode.Scalar, Int)? {
        var contiguous = text
        // Over the bytes in place: the UTF-8 view's iterator costs several times more per byte.
        if contiguous.withUTF8({ $0.allSatisfy { $0 > 0x20 && $0 < 0x7F } }) { return nil }
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
