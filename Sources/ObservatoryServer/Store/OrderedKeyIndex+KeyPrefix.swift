extension OrderedKeyIndex {
    /// The first 16 bytes of a key, big-endian and padded with zero bytes, as one
    /// 128-bit integer: when two prefixes differ, their order is their keys' byte
    /// order; when they are equal, the keys' bytes decide (they share 16 bytes, or
    /// one is the other followed by zero bytes).
    struct KeyPrefix: Comparable, Sendable {
        fileprivate let value: UInt128

        /// The prefix of `key`, borrowed: an initializer's parameter is otherwise
        /// passed owned, which costs a retain and a release of the key's storage.
        init(_ key: borrowing String) {
            // The first bytes, up to 16, copied over zeros and read as two big-endian
            // words. Native strings (every key here) are read in place; others are
            // made contiguous on a copy first.
            var words: (UInt64, UInt64) = (0, 0)
            let read: Void? = key.utf8.withContiguousStorageIfAvailable { Self.copy($0, into: &words) }
            if read == nil {
                var key = copy key
                key.withUTF8 { Self.copy($0, into: &words) }
            }
            value = UInt128(UInt64(bigEndian: words.0)) << 64 | UInt128(UInt64(bigEndian: words.1))
        }

        /// Copies the first bytes of `bytes`, up to 16, over the start of `words`.
        private static func copy(_ bytes: UnsafeBufferPointer<UInt8>, into words: inout (UInt64, UInt64)) {
            withUnsafeMutableBytes(of: &words) { words in
                words.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes).prefix(16)))
            }
        }

        static func < (lhs: KeyPrefix, rhs: KeyPrefix) -> Bool {
            lhs.value < rhs.value
        }
    }
}

extension OrderedKeyIndex.KeyPrefix {
    /// Whether keys start with a given prefix string, decided from a key's
    /// `KeyPrefix` alone when the prefix string has at most 16 bytes: the key's
    /// first bytes are compared as one masked integer, and its length rules out
    /// the zero bytes that pad a shorter key.
    struct Match {
        private let text: String
        private let length: Int
        private let value: UInt128
        private let mask: UInt128

        init(_ prefix: String) {
            text = prefix
            length = prefix.utf8.count
            let compared = min(length, 16)
            mask = compared == 0 ? 0 : ~UInt128(0) << (8 * (16 - compared))
            value = OrderedKeyIndex.KeyPrefix(prefix).value & mask
        }

        /// Whether `key`, whose prefix is `prefix`, starts with the prefix string.
        func admits(_ key: String, prefix: OrderedKeyIndex.KeyPrefix) -> Bool {
            guard prefix.value & mask == value else { return false }
            guard length > 16 else { return key.utf8.count >= length }
            return StoreKey(key).hasBytePrefix(text)
        }
    }
}
