/// How records sit in a file: each is a 4-byte little-endian payload length, the
/// payload's 4-byte CRC-32C, then the payload.
///
/// The length lets a reader skip to the next record; the checksum tells a whole
/// record from a torn or damaged one.
enum RecordFraming {
    /// Bytes before each payload.
    static let headerBytes = 8
    /// The largest payload accepted; a length above it is damage, not a record.
    static let maxPayloadBytes = 1 << 31 - 1

    /// Appends `record`, framed, to `buffer`.
    static func append(_ record: StorageRecord, to buffer: inout [UInt8]) {
        let start = buffer.count
        buffer.append(contentsOf: [0, 0, 0, 0, 0, 0, 0, 0])
        record.encode(into: &buffer)
        let length = UInt32(buffer.count - start - headerBytes)
        let checksum = buffer.withUnsafeBytes { bytes in
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[(start + headerBytes)...]))
        }
        store(length, at: start, in: &buffer)
        store(checksum, at: start + 4, in: &buffer)
    }

    /// One framed record as a new array.
    static func framed(_ record: StorageRecord) -> [UInt8] {
        var buffer: [UInt8] = []
        append(record, to: &buffer)
        return buffer
    }

    private static func store(_ value: UInt32, at offset: Int, in buffer: inout [UInt8]) {
        for index in 0..<4 {
            buffer[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(index)))
        }
    }
}
