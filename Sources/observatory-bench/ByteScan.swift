#if canImport(Glibc)
    import Glibc
#endif

/// The little parsing the load driver does on received bytes: find a byte or a
/// short pattern, compare a prefix, read a decimal number.
///
/// Deliberately minimal: the driver must read faster than a server writes, so it
/// frames and classifies replies without decoding them, and pulls out the one
/// number (the send stamp) it needs.
enum ByteScan {
    /// The index of the first `byte` in `bytes[start..<end]`.
    static func find(_ byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        guard start < end, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(byte), end - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// The index where `pattern` (not empty) first starts in `bytes[start..<end]`.
    ///
    /// It stops at each occurrence of the pattern's first byte that is not a
    /// quote: a JSON line has a quote every few bytes, and stopping at each cost
    /// the driver more than the server spent on an event.
    static func find(_ pattern: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        guard !pattern.isEmpty else { return nil }
        let anchor = pattern.firstIndex { $0 != UInt8(ascii: "\"") } ?? 0
        let anchorByte = pattern[anchor]
        var position = start + anchor
        while let candidate = find(anchorByte, in: bytes, from: position, to: end - (pattern.count - anchor) + 1) {
            if hasPrefix(pattern, in: bytes, at: candidate - anchor, end: end) { return candidate - anchor }
            position = candidate + 1
        }
        return nil
    }

    /// Whether `bytes[at..<end]` starts with `pattern`.
    static func hasPrefix(_ pattern: [UInt8], in bytes: UnsafeRawBufferPointer, at start: Int, end: Int) -> Bool {
        guard end - start >= pattern.count else { return false }
        for (offset, byte) in pattern.enumerated() where bytes[start + offset] != byte { return false }
        return true
    }

    /// The unsigned decimal number starting at `start` (at most 19 digits), if there is one.
    static func decimal(in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> UInt64? {
        var value: UInt64 = 0
        var position = start
        while position < end && position - start < 19 {
            let digit = bytes[position] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            value = value * 10 + UInt64(digit)
            position += 1
        }
        return position > start ? value : nil
    }
}
