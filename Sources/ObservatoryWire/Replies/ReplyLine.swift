/// The line of the reply every write gets (a `set`, `delete` or `batch`
/// success), written in one pass into a buffer's spare room; see
/// ``ServerReply/encodeWriteLine(id:key:version:changed:duplicate:into:)`` and
/// ``ServerReply/encodeBatchLine(id:revision:results:duplicate:into:)``.
///
/// The bytes are exactly those of ``ServerReply/encode(into:)`` and an LF.
/// Appending a dozen pieces to an array checked its capacity and uniqueness each
/// time: the reply to a write took about 1,400 instructions that way (callgrind,
/// docs/benchmarks.md). Not generic, so that it costs the same for either
/// representation of values.
@usableFromInline
enum ReplyLine {
    /// Appends the line of a write's success with an integer id (or none) and a
    /// key without bytes to escape, and returns true; appends nothing and returns
    /// false for a string id or a key to escape, which the encoder writes field by field.
    @usableFromInline
    static func appendWrite(
        id: RequestID?, key: String, version: Int64, changed: Bool?, duplicate: Bool, to buffer: inout [UInt8]
    ) -> Bool {
        let (isPlain, integerID) = plainID(id)
        guard isPlain else { return false }
        // Read in place (`withUTF8` needs a mutable copy: a retain and a release);
        // a key without contiguous bytes is written by the encoder, as is one to escape.
        let isWritten = key.utf8.withContiguousStorageIfAvailable { keyBytes -> Bool in
            guard !needsEscaping(keyBytes) else { return false }
            return appendLine(id: integerID, capacity: keyBytes.count + maxFixedByteCount, to: &buffer) { line in
                line.write(",\"key\":\"")
                line.write(keyBytes)
                line.write("\",\"version\":")
                line.write(version)
                if let changed { line.write(changed ? ",\"changed\":true" : ",\"changed\":false") }
                if duplicate { line.write(",\"duplicate\":true") }
                line.write("}\n")
                return true
            }
        }
        return isWritten ?? false
    }

    /// Appends the line of a `batch` success with an integer id (or none) and keys
    /// without bytes to escape, and returns true; appends nothing and returns false
    /// for a string id or a key to escape, which the encoder writes field by field.
    @usableFromInline
    static func appendBatch(
        id: RequestID?, revision: Int64, results: [BatchResult], duplicate: Bool, to buffer: inout [UInt8]
    ) -> Bool {
        let (isPlain, integerID) = plainID(id)
        guard isPlain else { return false }
        var capacity = maxFixedByteCount
        for result in results { capacity += result.key.utf8.count + maxResultByteCount }
        return appendLine(id: integerID, capacity: capacity, to: &buffer) { line in
            line.write(",\"revision\":")
            line.write(revision)
            line.write(",\"results\":[")
            for (index, result) in results.enumerated() {
                var key = result.key
                let isPlain = key.withUTF8 { keyBytes -> Bool in
                    guard !needsEscaping(keyBytes) else { return false }
                    line.write(index == 0 ? "{\"key\":\"" : ",{\"key\":\"")
                    line.write(keyBytes)
                    return true
                }
                guard isPlain else { return false }
                line.write("\",\"version\":")
                line.write(result.version)
                if let changed = result.changed {
                    line.write(changed ? ",\"changed\":true}" : ",\"changed\":false}")
                } else {
                    line.write("}")
                }
            }
            line.write(duplicate ? "],\"duplicate\":true}\n" : "]}\n")
            return true
        }
    }

    /// Reserves `capacity` bytes after `buffer`'s, writes `{"ok":true,"id":` and
    /// the id there, then what `body` writes; keeps it all and returns true if
    /// `body` does, else leaves `buffer` as it was (its capacity grown) and returns false.
    private static func appendLine(
        id: Int64?, capacity: Int, to buffer: inout [UInt8], _ body: (inout LineCursor) -> Bool
    ) -> Bool {
        var isWritten = false
        buffer.append(addingCapacity: capacity) { span in
            span.withUnsafeMutableBufferPointer { room, initialized in
                var line = LineCursor(room)
                line.writeStart(id: id)
                guard body(&line) else { return }
                initialized = line.count
                isWritten = true
            }
        }
        return isWritten
    }

    /// A request id as a line writes it: an integer, or nil for none; not plain
    /// for a string id, which the encoder writes (escaped).
    private static func plainID(_ id: RequestID?) -> (isPlain: Bool, integer: Int64?) {
        switch id {
        case .integer(let integer)?: (true, integer)
        case nil: (true, nil)
        case .string?: (false, nil)
        }
    }

    /// Whether a key has bytes that JSON escapes: a control byte, `"` or `\`.
    /// Eight bytes at a time, the last eight overlapping the ones before
    /// (callgrind: byte by byte cost about 75 instructions for a key of 15 bytes).
    private static func needsEscaping(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, bytes.count >= 8 else {
            return bytes.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        }
        // Every load reads the eight bytes at `offset ..< offset + 8`, within `bytes`:
        // `offset` stays at or below `bytes.count - 8`.
        let last = bytes.count - 8
        var offset = 0
        while true {
            if JSONBytes.wordNeedsEscaping(UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)) {
                return true
            }
            if offset == last { return false }
            offset = min(offset + 8, last)
        }
    }

    /// More than the bytes of a line besides its key: 71 of text and two integers of at most 20.
    private static let maxFixedByteCount = 128
    /// More than the bytes of a batch's result besides its key: 38 of text and an integer of at most 20.
    private static let maxResultByteCount = 64

    /// The decimal digits of 0 to 99, two bytes each.
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// Writes bytes one after another into a buffer known to be large enough.
    private struct LineCursor {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        private(set) var count = 0

        init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
            self.buffer = buffer
        }

        mutating func write(_ literal: StaticString) {
            write(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        }

        mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let source = bytes.baseAddress, let target = buffer.baseAddress else { return }
            (target + count).initialize(from: source, count: bytes.count)
            count += bytes.count
        }

        /// Writes `{"ok":true,"id":` and the id, or `null` for none.
        mutating func writeStart(id: Int64?) {
            write("{\"ok\":true,\"id\":")
            if let id { write(id) } else { write("null") }
        }

        /// Writes an integer in decimal, as ``JSONWriter`` does, two digits at a time.
        /// Through the buffer's base address, unchecked: the line reserved room for two
        /// integers of at most 20 bytes each besides its text (`maxFixedByteCount`), so
        /// every byte written lies in `count ..< count + 20` within the room (callgrind:
        /// subscripts checked each byte, about 85 instructions an integer).
        mutating func write(_ integer: Int64) {
            guard let base = buffer.baseAddress else { return }
            if integer < 0 {
                base[count] = UInt8(ascii: "-")
                count &+= 1
            }
            var magnitude = integer.magnitude
            var digitCount = 1
            var rest = magnitude
            while rest >= 100 {
                digitCount &+= 2
                rest /= 100
            }
            if rest >= 10 { digitCount &+= 1 }
            var target = base + (count &+ digitCount)
            count &+= digitCount
            let pairs = ReplyLine.digitPairs.utf8Start
            while magnitude >= 100 {
                let pair = Int(truncatingIfNeeded: magnitude % 100) &* 2
                magnitude /= 100
                target -= 2
                target[0] = pairs[pair]
                target[1] = pairs[pair &+ 1]
            }
            if magnitude >= 10 {
                let pair = Int(truncatingIfNeeded: magnitude) &* 2
                target[-2] = pairs[pair]
                target[-1] = pairs[pair &+ 1]
            } else {
                target[-1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
            }
        }
    }
}
