// The line of the reply every write gets, written in one pass.
extension Reply {
    /// The line of a `set` or `delete` success with an integer id (or none) and a
    /// key without bytes to escape, written straight into an array of its size; nil
    /// for any other reply, which ``encodedLine()`` writes field by field.
    ///
    /// The bytes are exactly those of ``encode(into:)`` and an LF. Appending a
    /// dozen pieces to an array checked its capacity and uniqueness each time:
    /// this, the reply to every write, took about 1,400 instructions that way
    /// (callgrind, docs/benchmarks.md).
    func writeLine() -> [UInt8]? {
        guard case .success(let id, let payload) = self else { return nil }
        let integerID: Int64?
        switch id {
        case .integer(let integer)?: integerID = integer
        case nil: integerID = nil
        case .string?: return nil
        }
        switch payload {
        case .set(let key, let version, let changed, let duplicate):
            return Self.writeLine(
                id: integerID, key: key, version: version, changed: changed, duplicate: duplicate)
        case .delete(let key, let version, let duplicate):
            return Self.writeLine(id: integerID, key: key, version: version, changed: nil, duplicate: duplicate)
        default:
            return nil
        }
    }

    private static func writeLine(id: Int64?, key: String, version: Int64, changed: Bool?, duplicate: Bool)
        -> [UInt8]?
    {
        var key = key
        return key.withUTF8 { keyBytes -> [UInt8]? in
            guard !keyBytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
            else { return nil }
            return [UInt8](unsafeUninitializedCapacity: keyBytes.count + maxFixedByteCount) { buffer, count in
                var line = LineCursor(buffer)
                line.write("{\"ok\":true,\"id\":")
                if let id { line.write(id) } else { line.write("null") }
                line.write(",\"key\":\"")
                line.write(keyBytes)
                line.write("\",\"version\":")
                line.write(version)
                if let changed { line.write(changed ? ",\"changed\":true" : ",\"changed\":false") }
                if duplicate { line.write(",\"duplicate\":true") }
                line.write("}\n")
                count = line.count
            }
        }
    }

    /// More than the bytes of a line besides its key: 71 of text and two integers of at most 20.
    private static let maxFixedByteCount = 128

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

        /// Writes an integer in decimal, as ``JSONWriter`` does.
        mutating func write(_ integer: Int64) {
            if integer < 0 {
                buffer[count] = UInt8(ascii: "-")
                count += 1
            }
            var magnitude = integer.magnitude
            var digitCount = 1
            var rest = magnitude / 10
            while rest > 0 {
                digitCount += 1
                rest /= 10
            }
            var index = count + digitCount
            count = index
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
        }
    }
}
