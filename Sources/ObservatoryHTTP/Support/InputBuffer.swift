#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Received bytes that a decoder has not consumed yet.
///
/// Consuming moves a read index; the consumed prefix is removed only when a new
/// append finds it at least half the buffer, so each byte is moved a bounded number
/// of times however the input is chunked. Positions that decoders keep between
/// calls are therefore offsets from ``readIndex``, never absolute indices.
struct InputBuffer: Sendable {
    /// The bytes; those before ``readIndex`` are consumed.
    private(set) var bytes: [UInt8] = []
    /// Where the unconsumed bytes start.
    private(set) var readIndex = 0

    /// The number of bytes not consumed yet.
    var readableCount: Int {
        bytes.count - readIndex
    }

    /// Adds received bytes, first dropping the consumed prefix if it is large.
    mutating func append(_ newBytes: some Sequence<UInt8>) {
        compact()
        bytes.append(contentsOf: newBytes)
    }

    /// Adds received bytes straight from a read buffer.
    mutating func append(_ newBytes: UnsafeRawBufferPointer) {
        compact()
        bytes.append(contentsOf: newBytes)
    }

    /// The unconsumed byte at `offset` from the read index.
    @inline(__always)
    subscript(offset offset: Int) -> UInt8 {
        bytes[readIndex + offset]
    }

    /// The offset from the read index of the first `byte` at or after offset
    /// `start`, found with `memchr`, which scans a word at a time.
    func firstOffset(of byte: UInt8, from start: Int) -> Int? {
        let absoluteStart = readIndex + start
        return bytes.withUnsafeBufferPointer { buffer in
            guard absoluteStart < buffer.count, let base = buffer.baseAddress,
                let found = memchr(base + absoluteStart, Int32(byte), buffer.count - absoluteStart)
            else { return nil }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found)) - readIndex
        }
    }

    /// Calls `body` with the unconsumed bytes from offset `start` to offset `end`.
    func withBytes<Result>(
        from start: Int, to end: Int, _ body: (UnsafeBufferPointer<UInt8>) throws(HTTPError) -> Result
    ) throws(HTTPError) -> Result {
        let range = (readIndex + start)..<(readIndex + end)
        return try bytes.withUnsafeBufferPointer { buffer throws(HTTPError) in
            try body(UnsafeBufferPointer(rebasing: buffer[range]))
        }
    }

    /// The next `count` unconsumed bytes as an array; consumes them.
    mutating func read(_ count: Int) -> [UInt8] {
        let result = Array(bytes[readIndex..<(readIndex + count)])
        readIndex += count
        return result
    }

    /// Consumes `count` bytes without copying them.
    mutating func consume(_ count: Int) {
        readIndex += count
    }

    /// Drops every byte and frees the storage (the connection is closing or failed).
    mutating func release() {
        bytes = []
        readIndex = 0
    }

    /// The unconsumed bytes, for a caller that takes over the stream (after an upgrade).
    mutating func takeRemaining() -> [UInt8] {
        let remaining = Array(bytes[readIndex...])
        release()
        return remaining
    }

    /// The bytes of memory the storage holds (its capacity), for memory accounting.
    var retainedByteCount: Int {
        bytes.capacity
    }

    /// The most capacity kept once the unconsumed bytes fit in half of it: storage grown
    /// for one large body is given back, so an idle connection does not keep it.
    static let retainedCapacity = 64 << 10

    private mutating func compact() {
        guard readIndex > 0, readIndex * 2 >= bytes.count else { return }
        let remaining = bytes.count - readIndex
        if bytes.capacity > Self.retainedCapacity && remaining <= Self.retainedCapacity / 2 {
            bytes = Array(bytes[readIndex...])
        } else if remaining == 0 {
            bytes.removeAll(keepingCapacity: true)
        } else {
            bytes.removeSubrange(..<readIndex)
        }
        readIndex = 0
    }
}
