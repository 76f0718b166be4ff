import ObservatoryWire

/// The primitive encodings of record payloads: LEB128 varints (zig-zag for signed
/// integers) and length-prefixed bytes.
enum RecordEncoding {
    static func write(_ value: Int64, into buffer: inout [UInt8]) {
        writeUnsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63)), into: &buffer)
    }

    static func writeUnsigned(_ value: UInt64, into buffer: inout [UInt8]) {
        var remaining = value
        while remaining >= 0x80 {
            buffer.append(UInt8(truncatingIfNeeded: remaining) | 0x80)
            remaining >>= 7
        }
        buffer.append(UInt8(remaining))
    }

    static func write(_ text: String, into buffer: inout [UInt8]) {
        // A native string's bytes are read in place; only another (bridged) one is copied.
        let written: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            writeUnsigned(UInt64(bytes.count), into: &buffer)
            buffer.append(contentsOf: bytes)
        }
        guard written == nil else { return }
        var text = text
        text.withUTF8 { bytes in
            writeUnsigned(UInt64(bytes.count), into: &buffer)
            buffer.append(contentsOf: bytes)
        }
    }

    /// An expiring key's expiry: its seconds, deadline, author and session.
    static func write(_ expiry: KeyExpiry, into buffer: inout [UInt8]) {
        write(expiry.seconds, into: &buffer)
        write(expiry.deadline, into: &buffer)
        write(expiry.author, into: &buffer)
        write(expiry.session, into: &buffer)
    }

    /// A value as its JSON text, length first: the bytes it was sent in, copied.
    static func write(_ value: EncodedJSON, into buffer: inout [UInt8]) {
        writeUnsigned(UInt64(value.count), into: &buffer)
        value.encode(into: &buffer)
    }
}

/// Why a record payload could not be decoded although its checksum matched:
/// written by another format, or by a bug.
struct RecordDecodingError: Error, Equatable, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Reads the primitives of `RecordEncoding` from a payload.
struct RecordReader {
    private let payload: UnsafeRawBufferPointer
    private var position = 0

    init(_ payload: UnsafeRawBufferPointer) {
        self.payload = payload
    }

    var isAtEnd: Bool { position == payload.count }
    var remaining: Int { payload.count - position }

    mutating func byte() throws(RecordDecodingError) -> UInt8 {
        guard position < payload.count else { throw RecordDecodingError("the record ends early") }
        defer { position += 1 }
        return payload[position]
    }

    mutating func unsigned() throws(RecordDecodingError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64 else { throw RecordDecodingError("a number is too long") }
            result |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { return result }
            shift += 7
        }
    }

    mutating func integer() throws(RecordDecodingError) -> Int64 {
        let raw = try unsigned()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    mutating func field() throws(RecordDecodingError) -> UnsafeRawBufferPointer {
        let length = try unsigned()
        guard length <= UInt64(remaining) else { throw RecordDecodingError("a field runs past the record's end") }
        let start = position
        position += Int(length)
        return UnsafeRawBufferPointer(rebasing: payload[start..<position])
    }

    mutating func string() throws(RecordDecodingError) -> String {
        let field = try field()
        guard let text = String(validating: field, as: UTF8.self) else {
            throw RecordDecodingError("a string is not valid UTF-8")
        }
        return text
    }

    mutating func internedString(_ strings: inout StringInterner) throws(RecordDecodingError) -> String {
        let field = try field()
        guard let text = strings.intern(field) else { throw RecordDecodingError("a string is not valid UTF-8") }
        return text
    }

    /// An expiry as `RecordEncoding.write(_:into:)` wrote it.
    mutating func expiry(_ strings: inout StringInterner) throws(RecordDecodingError) -> KeyExpiry {
        let seconds = try integer()
        let deadline = try integer()
        return KeyExpiry(
            seconds: seconds, deadline: deadline, author: try internedString(&strings),
            session: try internedString(&strings))
    }

    /// The rest of the record, read as an update or delete event's JSON text,
    /// its values kept as their bytes.
    mutating func event() throws(RecordDecodingError) -> RawEvent {
        let rest = UnsafeRawBufferPointer(rebasing: payload[position...])
        position = payload.count
        let event: RawEvent
        do {
            event = try RawEvent.decode(frame: rest)
        } catch {
            throw RecordDecodingError("a recent change is not a valid event: \(error.message)")
        }
        guard event != .shutdown else {
            throw RecordDecodingError("a recent change is not an update or delete event")
        }
        return event
    }

    /// A value's JSON text, checked as `JSONValue.parse` would check it and kept
    /// as its bytes: recovery builds no tree.
    mutating func value() throws(RecordDecodingError) -> EncodedJSON {
        let field = try field()
        do {
            return try EncodedJSON(validating: field)
        } catch {
            throw RecordDecodingError("a value is not valid JSON: \(error)")
        }
    }
}

/// Shares one `String` among records that repeat the same bytes (authors, sessions).
struct StringInterner {
    private var strings: [[UInt8]: String] = [:]
    /// Beyond this many distinct strings, new ones are no longer remembered.
    private let capacity = 65_536

    mutating func intern(_ bytes: UnsafeRawBufferPointer) -> String? {
        let key = [UInt8](bytes)
        if let known = strings[key] { return known }
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        if strings.count < capacity { strings[key] = text }
        return text
    }
}
