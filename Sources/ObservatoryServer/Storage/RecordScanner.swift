/// Reads the framed records of one file's bytes, in order, and says how the file ends.
///
/// A file ends `clean` after its last whole record. It ends `torn` when what
/// follows the last whole record cannot be a record and nothing valid comes
/// after it: a crash in the middle of a write leaves exactly that (a header or
/// payload cut short, a last record whose checksum fails, or zeros a file system
/// left after a crash). Anything else that fails is `damaged`: bytes that do not
/// checksum with more data after them are not a crash's work, and the reader must
/// not guess what they held.
struct RecordScanner {
    /// How the bytes after the last whole record look.
    enum Ending: Equatable {
        /// The file ends right after a whole record.
        case clean
        /// An interrupted write: cut the file at `offset` to recover.
        case torn(offset: Int, reason: String)
        /// Damage at `offset` that a crash cannot explain.
        case damaged(offset: Int, reason: String)
    }

    /// One record, with where it starts and where the next begins.
    struct Item {
        let offset: Int
        let end: Int
        let record: StorageRecord
    }

    private let bytes: UnsafeRawBufferPointer
    private var strings = StringInterner()
    /// Where the next record starts.
    private(set) var offset = 0
    /// Set once the scan has stopped.
    private(set) var ending: Ending?

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The next whole record, or `nil` at the end (then `ending` says how it ended).
    mutating func next() -> Item? {
        guard ending == nil else { return nil }
        let remaining = bytes.count - offset
        if remaining == 0 {
            ending = .clean
            return nil
        }
        guard remaining >= RecordFraming.headerBytes else {
            return stop(tornIfLast: true, reason: "\(remaining) bytes of a record header")
        }
        let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
        let checksum = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).littleEndian
        let payloadStart = offset + RecordFraming.headerBytes
        let end = payloadStart + length
        if length == 0 {
            return stop(tornIfLast: isZeroOrShort(from: payloadStart), reason: "a record of length 0")
        }
        if end > bytes.count {
            // Whole header, payload cut short by the end of the file: a write interrupted.
            return stop(tornIfLast: true, reason: "a record of \(length) bytes with only \(remaining - 8) left")
        }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<end])
        guard CRC32C.checksum(payload) == checksum else {
            return stop(tornIfLast: isZeroOrShort(from: end), reason: "a record whose checksum does not match")
        }
        do {
            let record = try StorageRecord.decode(payload, strings: &strings)
            let item = Item(offset: offset, end: end, record: record)
            offset = end
            return item
        } catch {
            ending = .damaged(offset: offset, reason: "a record that does not decode: \(error)")
            return nil
        }
    }

    private mutating func stop(tornIfLast isLast: Bool, reason: String) -> Item? {
        ending = isLast ? .torn(offset: offset, reason: reason) : .damaged(offset: offset, reason: reason)
        return nil
    }

    /// Whether only zeros (or nothing) follow `start`: a crash leaves the tail of a
    /// write missing or zero-filled, never more records after it.
    private func isZeroOrShort(from start: Int) -> Bool {
        guard start < bytes.count else { return true }
        return bytes[start...].allSatisfy { $0 == 0 }
    }
}
