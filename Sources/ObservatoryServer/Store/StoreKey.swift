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
        let contiguous = lhs.text.utf8.withContiguousStorageIfAvailable { left in
            rhs.text.utf8.withContiguousStorageIfAvailable { right in
                sameBytes(left, right)
            }
        }
        guard let contiguous, let equal = contiguous else {
            return lhs.text.utf8.elementsEqual(rhs.text.utf8)
        }
        return equal
    }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// A cheap hash of the bytes (FNV-1a) that picks the shard of `EntryTable`.
    var shardHash: UInt64 {
        // Over contiguous bytes: the UTF-8 view's iterator costs several times more per byte.
        var text = text
        return text.withUTF8 { bytes in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            return hash
        }
    }

    /// Whether the key's bytes start with the bytes of `prefix`.
    func hasBytePrefix(_ prefix: String) -> Bool {
        text.utf8.starts(with: prefix.utf8)
    }

    /// Byte-wise order, as `list` returns keys.
    static func byteOrder(_ lhs: String, _ rhs: String) -> Bool {
        let contiguous = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in precedes(left, right) }
        }
        guard let contiguous, let result = contiguous else {
            return lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
        }
        return result
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
