#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A key as the store compares it: by its UTF-8 bytes.
///
/// Swift's `String ==` treats canonically equivalent strings as equal (`"é"` and
/// `"e\u{301}"`), but docs/protocol.md says keys that differ in bytes are different
/// keys. Hashing and equality here look only at the bytes.
struct StoreKey: Hashable, Sendable {
    /// The key as sent.
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (lhs: StoreKey, rhs: StoreKey) -> Bool {
        sameBytes(lhs.text, rhs.text)
    }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Whether the key's bytes start with the bytes of `prefix`.
    func hasBytePrefix(_ prefix: String) -> Bool {
        text.utf8.starts(with: prefix.utf8)
    }

    /// Byte-wise order, as `list` returns keys.
    ///
    /// Reads both keys' bytes in place (`withUTF8` on a copy of the reference;
    /// native strings, which is every key here, are contiguous already), which
    /// costs a fraction of going through the UTF-8 view.
    static func byteOrder(_ lhs: String, _ rhs: String) -> Bool {
        var (lhs, rhs) = (lhs, rhs)
        return lhs.withUTF8 { left in rhs.withUTF8 { right in precedes(left, right) } }
    }

    /// Whether two keys have the same bytes.
    static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        var (lhs, rhs) = (lhs, rhs)
        return lhs.withUTF8 { left in rhs.withUTF8 { right in sameBytes(left, right) } }
    }

    private static func sameBytes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        guard left.count == right.count else { return false }
        // Only empty buffers may have no base address.
        guard let leftBase = left.baseAddress, let rightBase = right.baseAddress else { return true }
        return memcmp(leftBase, rightBase, left.count) == 0
    }

    private static func precedes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        let shared = min(left.count, right.count)
        if shared > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress {
            let order = memcmp(leftBase, rightBase, shared)
            if order != 0 { return order < 0 }
        }
        return left.count < right.count
    }
}
