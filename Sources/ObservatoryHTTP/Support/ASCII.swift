/// Byte classes of HTTP's grammar (RFC 9110, 9112), as plain switches the
/// compiler turns into range checks: no tables to allocate, no strings built.
enum ASCII {
    static let carriageReturn = UInt8(ascii: "\r")
    static let lineFeed = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let horizontalTab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")
    static let semicolon = UInt8(ascii: ";")

    /// The byte with A–Z mapped to a–z.
    @inline(__always)
    static func lowercased(_ byte: UInt8) -> UInt8 {
        (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) ? byte | 0x20 : byte
    }

    /// A `tchar`: the characters of a method or a header name.
    @inline(__always)
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// A byte allowed in a header value or a reason phrase: tab, visible
    /// characters, space and obs-text; no other controls (so no bare CR, no NUL).
    @inline(__always)
    static func isFieldValueCharacter(_ byte: UInt8) -> Bool {
        byte == horizontalTab || (byte >= 0x20 && byte != 0x7F)
    }

    /// A visible character other than space: what a request target is made of.
    @inline(__always)
    static func isVisible(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }

    /// The value of a hexadecimal digit, or `nil`.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
