/// The first record of every data file: what the file is and which history it belongs to.
struct StorageHeader: Equatable, Sendable {
    /// Whether a file is a change log or a snapshot.
    enum FileKind: UInt8, Sendable {
        /// Changes after `revision`, appended as they happen.
        case log = 1
        /// The whole store as of `revision`.
        case snapshot = 2
    }

    /// The only record format this version reads and writes.
    static let currentFormat: Int64 = 1

    /// The record format of the file.
    var format: Int64 = Self.currentFormat
    /// Log or snapshot.
    var kind: FileKind
    /// The name of the history (docs/protocol.md's epoch): every file of one data directory has the same.
    var epoch: String
    /// For a log, the revision before its first change; for a snapshot, the revision it captures.
    var revision: Int64
    /// Session numbers handed out up to this one (see `StorageRecord.sessionReservation`).
    var sessionReservation: Int64

    func encode(into buffer: inout [UInt8]) {
        RecordEncoding.write(format, into: &buffer)
        buffer.append(kind.rawValue)
        RecordEncoding.write(epoch, into: &buffer)
        RecordEncoding.write(revision, into: &buffer)
        RecordEncoding.write(sessionReservation, into: &buffer)
    }

    static func decode(_ reader: inout RecordReader) throws(RecordDecodingError) -> StorageHeader {
        let format = try reader.integer()
        guard format == currentFormat else {
            throw RecordDecodingError("record format \(format) is not supported (this version reads \(currentFormat))")
        }
        let kindByte = try reader.byte()
        guard let kind = FileKind(rawValue: kindByte) else {
            throw RecordDecodingError("unknown file kind \(kindByte)")
        }
        return StorageHeader(
            format: format, kind: kind, epoch: try reader.string(), revision: try reader.integer(),
            sessionReservation: try reader.integer())
    }
}
