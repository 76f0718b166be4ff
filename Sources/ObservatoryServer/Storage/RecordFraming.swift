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

    /// Appends `record`, framed, to `buffer`: a zeroed header, the payload, then
    /// the header's length and checksum stored in place.
    static func append(_ record: StorageRecord, to buffer: inout [UInt8]) {
        append(to: &buffer) { record.encode(into: &$0) }
    }

    /// Appends the payload `encode` writes, framed, to `buffer`: how a change's
    /// record is framed straight from its fields (`Storage.buffer(_:expiry:)`).
    @inline(__always)
    static func append(to buffer: inout [UInt8], _ encode: (inout [UInt8]) -> Void) {
        let start = buffer.count
        // The zeroed header, from one word's bytes: no repeated collection to walk.
        withUnsafeBytes(of: UInt64.zero) { buffer.append(contentsOf: $0) }
        encode(&buffer)
        let length = UInt32(buffer.count - start - headerBytes)
        buffer.withUnsafeMutableBytes { bytes in
            // In bounds: the header's 8 bytes were appended at `start`, the payload after them.
            let checksum = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[(start + headerBytes)...]))
            bytes.storeBytes(of: length.littleEndian, toByteOffset: start, as: UInt32.self)
            bytes.storeBytes(of: checksum.littleEndian, toByteOffset: start + 4, as: UInt32.self)
        }
    }

    /// Appends a record of `payloadBytes` bytes, which `write` writes, framed,
    /// to `buffer`: built and checksummed in scratch space (on the stack for a
    /// small record), then copied into the buffer at once.
    @inline(__always)
    static func append(to buffer: inout [UInt8], payloadBytes: Int, _ write: (inout RecordWriter) -> Void) {
        withUnsafeTemporaryAllocation(byteCount: headerBytes + payloadBytes, alignment: 8) { space in
            let payload = UnsafeMutableRawBufferPointer(rebasing: space[headerBytes...])
            var writer = RecordWriter(payload)
            write(&writer)
            precondition(writer.isFull, "a record shorter than the space sized for it")
            let checksum = CRC32C.checksum(UnsafeRawBufferPointer(payload))
            // In bounds: the space holds the 8 header bytes before the payload.
            space.storeBytes(of: UInt32(payloadBytes).littleEndian, toByteOffset: 0, as: UInt32.self)
            space.storeBytes(of: checksum.littleEndian, toByteOffset: 4, as: UInt32.self)
            buffer.append(contentsOf: UnsafeRawBufferPointer(space))
        }
    }

    /// One framed record as a new array.
    static func framed(_ record: StorageRecord) -> [UInt8] {
        var buffer: [UInt8] = []
        append(record, to: &buffer)
        return buffer
    }
}
