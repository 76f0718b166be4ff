/// Byte tests that every fast path over JSON text shares: the parser, the
/// writer, the quick checks and the wire's quick reader and reply lines.
@usableFromInline
package enum JSONBytes {
    /// Whether any of the eight bytes of `word` is below 0x20, `"` or `\`.
    ///
    /// A byte below 0x20 borrows into its high bit when 0x20 is subtracted, and
    /// a byte equal to `"` or `\` becomes zero when xored with it, which the
    /// same borrow test finds. Bytes of 0x80 and up (UTF-8 sequences) never
    /// match, since their own high bit masks the borrow.
    @inlinable
    package static func wordNeedsEscaping(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let quote = (quotes &- ones) & ~quotes
        let backslash = (backslashes &- ones) & ~backslashes
        return (control | quote | backslash) & highBits != 0
    }

    /// The index of the first byte at or after `position` in `bytes` that is not
    /// JSON whitespace (space, tab, line feed, carriage return).
    @inlinable
    package static func endOfWhitespace(in bytes: UnsafeBufferPointer<UInt8>, from position: Int) -> Int {
        // Compact JSON, what clients send, has none: one test and out.
        guard position < bytes.count, bytes[position] <= UInt8(ascii: " ") else { return position }
        var index = position
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                index += 1
            default:
                return index
            }
        }
        return index
    }
}
