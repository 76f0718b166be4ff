/// Why bytes are not one valid JSON value (RFC 8259), and where.
///
/// A struct with `static` kinds, as in swift-nio's error types, so new kinds can be
/// added without breaking `switch`es in user code. Compare ``kind`` to the
/// constants; ``description`` is a message a person can act on.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category of a parse error.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The input ended inside a value.
        public static let unexpectedEnd = Kind("unexpected end of input")
        /// A byte that cannot start or continue a value here.
        public static let unexpectedByte = Kind("unexpected byte")
        /// Bytes after the value (other than whitespace).
        public static let trailingBytes = Kind("trailing bytes after the value")
        /// Malformed number (leading zero, missing digits, …).
        public static let invalidNumber = Kind("invalid number")
        /// A number too large for a Double, such as `1e400`.
        public static let numberOutOfRange = Kind("number out of range")
        /// A bad escape sequence, or a lone UTF-16 surrogate in `\u` escapes.
        public static let invalidEscape = Kind("invalid escape")
        /// An unescaped control character (U+0000–U+001F) inside a string.
        public static let controlCharacterInString = Kind("control character in string")
        /// Bytes that are not valid UTF-8.
        public static let invalidUTF8 = Kind("invalid UTF-8")
        /// Arrays and objects nested deeper than the limit.
        public static let nestingTooDeep = Kind("nesting too deep")

        /// The kind's name.
        public var description: String { name }
    }

    /// What went wrong.
    public let kind: Kind
    /// The byte offset in the input where it went wrong.
    public let offset: Int
    /// Details for a person, for example the offending byte or the limit.
    public let detail: String

    /// Creates an error; the parser is the usual source.
    public init(kind: Kind, offset: Int, detail: String) {
        self.kind = kind
        self.offset = offset
        self.detail = detail
    }

    /// For example `invalid number at byte 7: leading zeros are not allowed`.
    public var description: String {
        "\(kind) at byte \(offset): \(detail)"
    }
}
