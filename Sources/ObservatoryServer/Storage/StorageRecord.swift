import ObservatoryWire

/// One record of a data file: what the change log appends and a snapshot holds.
///
/// Every file starts with a `header`. A log then holds `set`, `delete`,
/// `appliedWrite` and `sessionReservation` records in the order they happened; a
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
    /// deleted it because the session it was bound to ended, `expired` when it
    /// expired.
    case delete(
        key: String, version: Int64, author: String, session: String, sessionEnded: Bool = false,
        expired: Bool = false)
    /// The clock of an expiring key restarted by a `set` that changed nothing (no revision).
    case expiry(key: String, KeyExpiry)
    /// A write with a `requestId` was applied (right after its change, in the same write).
    case appliedWrite(AppliedWrite)
    /// A recent change exactly as it was sent, kept in a snapshot so that resuming
    /// survives compaction.
    case history(RawEvent)
    /// Session numbers up to this one may have been handed out; a restart continues above it.
    case sessionReservation(Int64)
    /// The last record of a complete snapshot, with the number of entries before it.
    case snapshotEnd(entryCount: Int64)
    /// The time (milliseconds since 1970 UTC) of the change records that follow,
    /// up to the next such record: a change's `at`, kept for `history`. Written
    /// before each change in a log and before each `history` record in a snapshot;
    /// files written before it existed have none, and their changes read as `at` 0.
    case changeTime(Int64)
    /// A `batch`: the `set` and `delete` records of its changes, all at `revision`,
    /// then its `appliedWrite`, if any, in one record, so that recovery reads
    /// them all back or (when the record is torn) none.
    case batch(revision: Int64, [StorageRecord])

    /// The first byte of a payload: which record it is.
    enum Kind: UInt8 {
        case header = 1, set = 2, delete = 3, sessionReservation = 4, snapshotEnd = 5
        case sessionBoundSet = 6, sessionEndedDelete = 7, appliedWrite = 8, history = 9
        case changeTime = 10, batch = 11
        /// Added with expiring keys; a data directory without them has none.
        case expiringSet = 12, expiredDelete = 13, expiry = 14
    }

    /// The revision a change record took, or `nil` for the other records.
    var revision: Int64? {
        switch self {
        case .set(let entry): entry.version
        case .delete(_, let version, _, _, _, _): version
        case .batch(let revision, _): revision
        case .header, .sessionReservation, .snapshotEnd, .appliedWrite, .history, .changeTime, .expiry: nil
        }
    }

    /// Appends the record's payload (without framing) to `buffer`.
    func encode(into buffer: inout [UInt8]) {
        switch self {
        case .header(let header):
            buffer.append(Kind.header.rawValue)
            header.encode(into: &buffer)
        case .set(let entry):
            Self.encodeSet(
                key: entry.key, value: entry.value, version: entry.version, author: entry.author,
                session: entry.session, sessionBound: entry.sessionBound, expiry: entry.expiry, into: &buffer)
        case .expiry(let key, let expiry):
            buffer.append(Kind.expiry.rawValue)
            RecordEncoding.write(key, into: &buffer)
            RecordEncoding.write(expiry, into: &buffer)
        case .delete(let key, let version, let author, let session, let sessionEnded, let expired):
            Self.encodeDelete(
                key: key, version: version, author: author, session: session, sessionEnded: sessionEnded,
                expired: expired, into: &buffer)
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
        case .sessionReservation(let number):
            buffer.append(Kind.sessionReservation.rawValue)
            RecordEncoding.write(number, into: &buffer)
        case .snapshotEnd(let count):
            buffer.append(Kind.snapshotEnd.rawValue)
            RecordEncoding.write(count, into: &buffer)
        case .changeTime(let at):
            Self.encodeChangeTime(at, into: &buffer)
        case .batch(let revision, let records):
            buffer.append(Kind.batch.rawValue)
            Self.writeBatch(revision: revision, records, into: &buffer)
        }
    }

    /// Appends the payload of `.set` for an entry given by its fields: what a
    /// change's record is encoded from in place (`StoreChange.encodeRecord`),
    /// with no record or entry built first.
    static func encodeSet(
        key: String, value: EncodedJSON, version: Int64, author: String, session: String, sessionBound: Bool,
        expiry: KeyExpiry?, into buffer: inout [UInt8]
    ) {
        let kind: Kind = expiry != nil ? .expiringSet : sessionBound ? .sessionBoundSet : .set
        buffer.append(kind.rawValue)
        RecordEncoding.write(version, into: &buffer)
        RecordEncoding.write(key, into: &buffer)
        RecordEncoding.write(author, into: &buffer)
        RecordEncoding.write(session, into: &buffer)
        RecordEncoding.write(value, into: &buffer)
        if let expiry {
            buffer.append(sessionBound ? 1 : 0)
            RecordEncoding.write(expiry, into: &buffer)
        }
    }

    /// Appends the payload of `.delete` given by its fields (see `encodeSet`).
    static func encodeDelete(
        key: String, version: Int64, author: String, session: String, sessionEnded: Bool, expired: Bool,
        into buffer: inout [UInt8]
    ) {
        let kind: Kind = expired ? .expiredDelete : sessionEnded ? .sessionEndedDelete : .delete
        buffer.append(kind.rawValue)
        RecordEncoding.write(version, into: &buffer)
        RecordEncoding.write(key, into: &buffer)
        RecordEncoding.write(author, into: &buffer)
        RecordEncoding.write(session, into: &buffer)
    }

    /// Appends the payload of `.changeTime(at)`.
    static func encodeChangeTime(_ at: Int64, into buffer: inout [UInt8]) {
        buffer.append(Kind.changeTime.rawValue)
        RecordEncoding.write(at, into: &buffer)
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
        case .set, .sessionBoundSet, .expiringSet:
            let version = try reader.integer()
            let key = try reader.string()
            let author = try reader.internedString(&strings)
            let session = try reader.internedString(&strings)
            let value = try reader.value()
            var entry = RawValueEntry(
                key: key, value: value, version: version, author: author, session: session,
                sessionBound: kind == .sessionBoundSet)
            if kind == .expiringSet {
                entry.sessionBound = try reader.byte() == 1
                entry.expiry = try reader.expiry(&strings)
            }
            record = .set(entry)
        case .expiry:
            let key = try reader.string()
            record = .expiry(key: key, try reader.expiry(&strings))
        case .delete, .sessionEndedDelete, .expiredDelete:
            let version = try reader.integer()
            let key = try reader.string()
            record = .delete(
                key: key, version: version, author: try reader.internedString(&strings),
                session: try reader.internedString(&strings), sessionEnded: kind == .sessionEndedDelete,
                expired: kind == .expiredDelete)
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
        case .sessionReservation:
            record = .sessionReservation(try reader.integer())
        case .snapshotEnd:
            record = .snapshotEnd(entryCount: try reader.integer())
        case .changeTime:
            record = .changeTime(try reader.integer())
        case .batch:
            record = try decodeBatch(&reader, strings: &strings)
        }
        guard reader.isAtEnd else { throw RecordDecodingError("\(reader.remaining) unexpected bytes after the record") }
        return record
    }
}
