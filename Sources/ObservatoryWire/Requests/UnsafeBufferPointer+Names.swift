extension UnsafeBufferPointer<UInt8> {
    /// Whether these bytes are the UTF-8 of `name`.
    func holds(_ name: StaticString) -> Bool {
        holdsBytes(of: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
    }

    /// Whether these bytes equal `other`'s, compared index by index: the generic
    /// `elementsEqual` walks two iterators and cost about 480 instructions a
    /// request in the names of its fields (callgrind, docs/benchmarks.md).
    func holdsBytes(of other: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == other.count else { return false }
        for index in 0..<count where self[index] != other[index] {
            return false
        }
        return true
    }

    /// The bytes as a `String`, as `String(decoding:as: UTF8.self)` makes it (bytes
    /// that are not UTF-8 repaired the same way), built in place: up to 15 ASCII
    /// bytes become a small string with no check beyond one test of their high
    /// bits, where `String(decoding:as:)` validated and repaired them byte by byte
    /// (about 210 instructions a key, callgrind; docs/benchmarks.md).
    var text: String {
        String(unsafeUninitializedCapacity: count) { buffer in
            // `buffer` holds `count` bytes, exactly what is copied into it.
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(self))
            return count
        }
    }

    /// Whether these bytes are a valid key by a test that decides the usual kind
    /// alone: 1 to ``KeyRules/maxBytes`` bytes, each printable ASCII other than
    /// space (keys with other bytes may still be valid; ``KeyRules`` decides them).
    var isPlainKey: Bool {
        guard (1...KeyRules.maxBytes).contains(count), let base = baseAddress else { return false }
        var index = 0
        // Eight bytes at a time: a byte at or below a space borrows when 0x21 is
        // taken from it (and marks its high bit, its own being clear); one at or
        // above 0x7F reaches its high bit when 1 is added, or has it already. With
        // no such byte in the word, nothing borrows or carries, and nothing is marked.
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func isPlain(at offset: Int) -> Bool {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
            return ((word &- ones &* 0x21) & ~word | (word &+ ones) | word) & highBits == 0
        }
        while count - index >= 8 {
            guard isPlain(at: index) else { return false }
            index += 8
        }
        // The last bytes as the last eight, some of them tested again.
        if index < count, count >= 8 {
            return isPlain(at: count - 8)
        }
        while index < count {
            guard self[index] > 0x20, self[index] < 0x7F else { return false }
            index += 1
        }
        return true
    }
}
