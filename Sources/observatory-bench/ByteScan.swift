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
    static func find(_ pattern: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        guard let first = pattern.first else { return nil }
        var position = start
        while let candidate = find(first, in: bytes, from: position, to: end - pattern.count + 1) {
            if hasPrefix(pattern, in: bytes, at: candidate, end: end) { return candidate }
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
