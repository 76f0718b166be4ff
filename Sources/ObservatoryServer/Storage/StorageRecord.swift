import ObservatoryWire

/// One record of a data file: what the change log appends and a snapshot holds.
///
/// Every file starts with a `header`. A log then holds `set`, `delete`,
/// `appliedWrite` and `sessionLease` records in the order they happened; a
/// snapshot holds one `set` per key, then the recent changes (`history`) and the
/// remembered writes (`appliedWrite`), and ends with `snapshotEnd`, so a snapshot
/// cut short is never taken for a whole one. The encoding is binary and versioned by the header's `format`:
/// integers as LEB128 varints, strings and values as a length and their UTF-8
/// bytes (values as their JSON text, which round-trips exactly).
enum StorageRecord: Equatable, Sendable {
    /// The first record of every file.
    case header(StorageHeader)
    /// A key written: the whole entry as it stands after the change (session-bound or not).
    case set(RawValueEntry)
    /// A key deleted, by whom, at which revision; `sessionEnded` when the server
    /// deleted it because the session it was bound to ended.
    case delete(key: String, version: Int64, author: String, session: String, sessionEnded: Bool = false)
    /// A write with a `requestId` was applied (right after its change, in the same write).
    case appliedWrite(AppliedWrite)
    /// A recent change exactly as it was sent, kept in a snapshot so that resuming
    /// survives compaction.
    case history(RawEvent)
    /// Session numbers up to this one may have been handed out; a restart continues above it.
    case sessionLease(Int64)
    /// The last record of a complete snapshot, with the number of entries before it.
    case snapshotEnd(entryCount: Int64)
    /// A `batch`: the `set` and `delete` records of its changes, all at `revision`,
    /// then its `appliedWrite`, if any, in one record, so that recovery reads
    /// them all back or (when the record is torn) none.
    case batch(revision: Int64, [StorageRecord])

    private enum Kind: UInt8 {
        case header = 1, set = 2, delete = 3, sessionLease = 4, snapshotEnd = 5
        case sessionBoundSet = 6, sessionEndedDelete = 7, appliedWrite = 8, history = 9, batch = 10
    }

    /// The revision a change record took, or `nil` for the other records.
    var revision: Int64? {
        switch self {
        case .set(let entry): entry.version
        case .delete(_, let version, _, _, _): version
        case .batch(let revision, _): revision
        case .header, .sessionLease, .snapshotEnd, .appliedWrite, .history: nil
        }
    }

    /// Appends the record's payload (without framing) to `buffer`.
    func encode(into buffer: inout [UInt8]) {
        switch self {
        case .header(let header):
            buffer.append(Kind.header.rawValue)
            header.encode(into: &buffer)
        case .set(let entry):
            buffer.append(entry.ephemeral ? Kind.sessionBoundSet.rawValue : Kind.set.rawValue)
            RecordEncoding.write(entry.version, into: &buffer)
            RecordEncoding.write(entry.key, into: &buffer)
            RecordEncoding.write(entry.author, into: &buffer)
            RecordEncoding.write(entry.session, into: &buffer)
            RecordEncoding.write(entry.value, into: &buffer)
        case .delete(let key, let version, let author, let session, let sessionEnded):
            buffer.append(sessionEnded ? Kind.sessionEndedDelete.rawValue : Kind.delete.rawValue)
            RecordEncoding.write(version, into: &buffer)
            RecordEncoding.write(key, into: &buffer)
            RecordEncoding.write(author, into: &buffer)
            RecordEncoding.write(session, into: &buffer)
        case .appliedWrite(let write):
            buffer.append(Kind.appliedWrite.rawValue)
            RecordEncoding.write(write.requestId, into: &buffer)
            RecordEncoding.write(write.appliedAt, into: &buffer)
            switch write.reply {
            case .set(let key, let version, let changed):
                buffer.append(changed ? 1 : 0)
                RecordEncoding.write(key, into: &buffer)
                RecordEncoding.write(version, into: &buffer)
            case .delete(let key, let version):
                buffer.append(2)
                RecordEncoding.write(key, into: &buffer)
                RecordEncoding.write(version, into: &buffer)
            case .batch(let revision, let results):
                // The key of the first result stands where the others have theirs.
                buffer.append(3)
                RecordEncoding.write(results.first?.key ?? "", into: &buffer)
                RecordEncoding.write(revision, into: &buffer)
                Self.write(results, into: &buffer)
            }
        case .history(let event):
            buffer.append(Kind.history.rawValue)
            // The event's JSON text is the rest of the record: no length needed.
            event.encode(into: &buffer)
        case .sessionLease(let number):
            buffer.append(Kind.sessionLease.rawValue)
            RecordEncoding.write(number, into: &buffer)
        case .snapshotEnd(let count):
            buffer.append(Kind.snapshotEnd.rawValue)
            RecordEncoding.write(count, into: &buffer)
        case .batch(let revision, let records):
            buffer.append(Kind.batch.rawValue)
            Self.writeBatch(revision: revision, records, into: &buffer)
        }
    }

    /// The payload as a new array.
    func encoded() -> [UInt8] {
        var buffer: [UInt8] = []
        encode(into: &buffer)
        return buffer
    }

    /// Decodes a payload whose checksum has already been verified.
    ///
    /// - Parameter strings: interns author and session names, which repeat across
    ///   many entries, so a million keys written by a few sessions share a few strings.
    /// - Throws: `RecordDecodingError` when the bytes do not form a record of a known kind.
    static func decode(_ payload: UnsafeRawBufferPointer, strings: inout StringInterner) throws(RecordDecodingError)
        -> StorageRecord
    {
        var reader = RecordReader(payload)
        let kindByte = try reader.byte()
        guard let kind = Kind(rawValue: kindByte) else { throw RecordDecodingError("unknown record kind \(kindByte)") }
        let record: StorageRecord
        switch kind {
        case .header:
            record = .header(try StorageHeader.decode(&reader))
        case .set, .sessionBoundSet:
            let version = try reader.integer()
            let key = try reader.string()
            let author = try reader.internedString(&strings)
            let session = try reader.internedString(&strings)
            let value = try reader.value()
            record = .set(
                RawValueEntry(
                    key: key, value: value, version: version, author: author, session: session,
                    ephemeral: kind == .sessionBoundSet))
        case .delete, .sessionEndedDelete:
            let version = try reader.integer()
            let key = try reader.string()
            record = .delete(
                key: key, version: version, author: try reader.internedString(&strings),
                session: try reader.internedString(&strings), sessionEnded: kind == .sessionEndedDelete)
        case .appliedWrite:
            let requestId = try reader.string()
            let appliedAt = try reader.integer()
            let replyKind = try reader.byte()
            let key = try reader.string()
            let version = try reader.integer()
            let reply: AppliedWrite.Reply
            switch replyKind {
            case 0, 1: reply = .set(key: key, version: version, changed: replyKind == 1)
            case 2: reply = .delete(key: key, version: version)
            case 3: reply = .batch(revision: version, results: try Self.batchResults(&reader))
            default: throw RecordDecodingError("unknown applied-write kind \(replyKind)")
            }
            record = .appliedWrite(AppliedWrite(requestId: requestId, appliedAt: appliedAt, reply: reply))
        case .history:
            record = .history(try reader.event())
        case .sessionLease:
            record = .sessionLease(try reader.integer())
        case .snapshotEnd:
            record = .snapshotEnd(entryCount: try reader.integer())
        case .batch:
            record = try decodeBatch(&reader, strings: &strings)
        }
        guard reader.isAtEnd else { throw RecordDecodingError("\(reader.remaining) unexpected bytes after the record") }
        return record
    }
}
