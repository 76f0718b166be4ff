import ObservatoryWire

/// Writes the primitives of `RecordEncoding` (LEB128 varints, zig-zag for
/// signed integers, length-prefixed bytes) through a pointer, into space sized
/// beforehand with `unsignedBytes` and `fieldBytes`.
///
/// How a change's record is built: encoded and checksummed in one scratch area
/// and appended to the buffer with one copy (`RecordFraming.append(to:payloadBytes:_:)`),
/// instead of growing the buffer a byte or a field at a time. Every write
/// checks that it stays within the space, so a wrong size stops the server
/// instead of writing past it.
struct RecordWriter {
    private var cursor: UnsafeMutableRawPointer
    private let end: UnsafeMutableRawPointer

    /// A writer that fills `space` from its start.
    init(_ space: UnsafeMutableRawBufferPointer) {
        guard let start = space.baseAddress else {
            preconditionFailure("a record is written into space of at least its kind byte")
        }
        cursor = start
        end = start + space.count
    }

    /// Whether every byte of the space was written.
    var isFull: Bool { cursor == end }

    /// The bytes `unsigned(_:)` writes for `value`.
    static func unsignedBytes(_ value: UInt64) -> Int {
        value < 0x80 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }

    /// The bytes `integer(_:)` writes for `value`.
    static func integerBytes(_ value: Int64) -> Int {
        unsignedBytes(zigZag(value))
    }

    /// The bytes `field(_:)` writes for a field of `count` bytes.
    static func fieldBytes(_ count: Int) -> Int {
        unsignedBytes(UInt64(count)) + count
    }

    private static func zigZag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    mutating func byte(_ value: UInt8) {
        precondition(cursor < end, "a record written past the space sized for it")
        cursor.storeBytes(of: value, as: UInt8.self)
        cursor += 1
    }

    mutating func unsigned(_ value: UInt64) {
        var remaining = value
        while remaining >= 0x80 {
            byte(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        byte(UInt8(remaining))
    }

    mutating func integer(_ value: Int64) {
        unsigned(Self.zigZag(value))
    }

    /// A length, then the bytes.
    mutating func field(_ bytes: UnsafeRawBufferPointer) {
        unsigned(UInt64(bytes.count))
        guard let source = bytes.baseAddress else { return }
        precondition(end - cursor >= bytes.count, "a record written past the space sized for it")
        cursor.copyMemory(from: source, byteCount: bytes.count)
        cursor += bytes.count
    }

    /// A string's UTF-8 bytes as a field; a native string's are read in place.
    mutating func field(_ text: String) {
        let written: Void? = text.utf8.withContiguousStorageIfAvailable { field(UnsafeRawBufferPointer($0)) }
        guard written == nil else { return }
        var text = text
        text.withUTF8 { field(UnsafeRawBufferPointer($0)) }
    }

    /// A value's JSON text as a field.
    mutating func field(_ value: EncodedJSON) {
        value.bytes.withUnsafeBytes { field($0) }
    }
}
