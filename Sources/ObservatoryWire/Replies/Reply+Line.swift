// A reply's line appended where it goes out, the reply to every write in one pass.
extension Reply {
    /// Appends the reply as one frame, the bytes of ``encodedLine()``, to `buffer`:
    /// how a server copies a reply straight into a connection's output, without an
    /// array of its own.
    ///
    /// A `set` or `delete` success with an integer id (or none) and a key without
    /// bytes to escape, the reply to every write, is written in one pass into the
    /// buffer's spare room; any other reply field by field, as ``encode(into:)``
    /// writes it. Appending a dozen pieces to an array checked its capacity and
    /// uniqueness each time: the reply to a write took about 1,400 instructions that
    /// way (callgrind, docs/benchmarks.md).
    public func encodeLine(into buffer: inout [UInt8]) {
        if !appendWriteLine(to: &buffer) {
            encode(into: &buffer)
            buffer.append(UInt8(ascii: "\n"))
        }
    }

    /// Appends the line of a `set` or `delete` success with an integer id (or
    /// none) and a key without bytes to escape, and returns true; appends nothing
    /// and returns false for any other reply.
    private func appendWriteLine(to buffer: inout [UInt8]) -> Bool {
        guard case .success(let id, let payload) = self else { return false }
        let integerID: Int64?
        switch id {
        case .integer(let integer)?: integerID = integer
        case nil: integerID = nil
        case .string?: return false
        }
        switch payload {
        case .set(let key, let version, let changed, let duplicate):
            return Self.appendWriteLine(
                id: integerID, key: key, version: version, changed: changed, duplicate: duplicate, to: &buffer)
        case .delete(let key, let version, let duplicate):
            return Self.appendWriteLine(
                id: integerID, key: key, version: version, changed: nil, duplicate: duplicate, to: &buffer)
        default:
            return false
        }
    }

    private static func appendWriteLine(
        id: Int64?, key: String, version: Int64, changed: Bool?, duplicate: Bool, to buffer: inout [UInt8]
    ) -> Bool {
        var key = key
        return key.withUTF8 { keyBytes -> Bool in
            guard !keyBytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
            else { return false }
            buffer.append(addingCapacity: keyBytes.count + maxFixedByteCount) { span in
                span.withUnsafeMutableBufferPointer { room, initialized in
                    var line = LineCursor(room)
                    line.write("{\"ok\":true,\"id\":")
                    if let id { line.write(id) } else { line.write("null") }
                    line.write(",\"key\":\"")
                    line.write(keyBytes)
                    line.write("\",\"version\":")
                    line.write(version)
                    if let changed { line.write(changed ? ",\"changed\":true" : ",\"changed\":false") }
                    if duplicate { line.write(",\"duplicate\":true") }
                    line.write("}\n")
                    initialized = line.count
                }
            }
            return true
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
