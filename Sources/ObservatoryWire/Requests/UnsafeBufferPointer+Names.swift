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

    /// Whether these bytes are a valid key by a test that decides the usual kind
    /// alone: 1 to ``KeyRules/maxBytes`` bytes, each printable ASCII other than
    /// space (keys with other bytes may still be valid; ``KeyRules`` decides them).
    var isPlainKey: Bool {
        guard (1...KeyRules.maxBytes).contains(count) else { return false }
        for byte in self where byte <= 0x20 || byte >= 0x7F {
            return false
        }
        return true
    }
}
