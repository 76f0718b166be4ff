import ObservatoryWire

// A change's records framed straight from its fields, sized first and written
// through a pointer (`RecordWriter`): the bytes `encodeSet`, `encodeDelete` and
// `encodeChangeTime` append, with one copy into the buffer.
extension StorageRecord {
    /// Appends the framed `.changeTime(at)` record to `buffer`.
    static func appendChangeTime(_ at: Int64, to buffer: inout [UInt8]) {
        RecordFraming.append(to: &buffer, payloadBytes: 1 + RecordWriter.integerBytes(at)) { writer in
            writer.byte(Kind.changeTime.rawValue)
            writer.integer(at)
        }
    }

    /// Appends the framed `.set` record of a lasting entry (one without expiry)
    /// given by its fields to `buffer`: the bytes `encodeSet` writes.
    static func appendLastingSet(
        key: String, value: EncodedJSON, version: Int64, author: String, session: String, sessionBound: Bool,
        to buffer: inout [UInt8]
    ) {
        let payloadBytes =
            1 + RecordWriter.integerBytes(version) + RecordWriter.fieldBytes(key.utf8.count)
            + RecordWriter.fieldBytes(author.utf8.count) + RecordWriter.fieldBytes(session.utf8.count)
            + RecordWriter.fieldBytes(value.bytes.count)
        RecordFraming.append(to: &buffer, payloadBytes: payloadBytes) { writer in
            writer.byte((sessionBound ? Kind.sessionBoundSet : Kind.set).rawValue)
            writer.integer(version)
            writer.field(key)
            writer.field(author)
            writer.field(session)
            writer.field(value)
        }
    }

    /// Appends the framed `.delete` record given by its fields to `buffer`: the
    /// bytes `encodeDelete` writes.
    static func appendDelete(
        key: String, version: Int64, author: String, session: String, sessionEnded: Bool, expired: Bool,
        to buffer: inout [UInt8]
    ) {
        let kind: Kind = expired ? .expiredDelete : sessionEnded ? .sessionEndedDelete : .delete
        let payloadBytes =
            1 + RecordWriter.integerBytes(version) + RecordWriter.fieldBytes(key.utf8.count)
            + RecordWriter.fieldBytes(author.utf8.count) + RecordWriter.fieldBytes(session.utf8.count)
        RecordFraming.append(to: &buffer, payloadBytes: payloadBytes) { writer in
            writer.byte(kind.rawValue)
            writer.integer(version)
            writer.field(key)
            writer.field(author)
            writer.field(session)
        }
    }
}
