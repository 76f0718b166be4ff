// The parts of replies and events that carry values, written once for both
// kinds of values (`JSONWritable`), so that a message with an `EncodedJSON`
// is byte for byte the message with the equivalent `JSONValue` whenever the
// value's bytes are canonical.
extension JSONWriter {
    /// Appends `"key":…,"value":…,"version":…,"author":…,"session":…` and
    /// `,"ephemeral":true` for a session-bound key and `,"ttl":…` for an expiring
    /// one (no braces): a `get` reply's fields and a snapshot entry.
    static func writeEntryFields(
        key: String, value: some JSONWritable, version: Int64, author: String, session: String, sessionBound: Bool,
        ttl: Int64?, into buffer: inout [UInt8]
    ) {
        writeLiteral("\"key\":", into: &buffer)
        write(key, into: &buffer)
        writeLiteral(",\"value\":", into: &buffer)
        value.encode(into: &buffer)
        writeChangeStamp(version: version, author: author, session: session, into: &buffer)
        if sessionBound { writeLiteral(",\"ephemeral\":true", into: &buffer) }
        writeTTL(ttl, into: &buffer)
    }

    /// Appends `,"ttl":…` when `ttl` is given.
    private static func writeTTL(_ ttl: Int64?, into buffer: inout [UInt8]) {
        guard let ttl else { return }
        writeLiteral(",\"ttl\":", into: &buffer)
        write(ttl, into: &buffer)
    }

    /// Appends an observe reply's fields after `"ok"` and `"id"`, each preceded
    /// by a comma: `resumed`, `values` (unless resumed) and `revision`.
    static func writeObserveFields<Entry>(
        values: [Entry], revision: Int64, resumed: Bool?, into buffer: inout [UInt8],
        writeEntryFields: (Entry, inout [UInt8]) -> Void
    ) {
        if resumed == true {
            writeLiteral(",\"resumed\":true,\"revision\":", into: &buffer)
            write(revision, into: &buffer)
            return
        }
        if resumed == false { writeLiteral(",\"resumed\":false", into: &buffer) }
        writeLiteral(",\"values\":[", into: &buffer)
        for (index, entry) in values.enumerated() {
            writeLiteral(index == 0 ? "{" : ",{", into: &buffer)
            writeEntryFields(entry, &buffer)
            buffer.append(UInt8(ascii: "}"))
        }
        buffer.append(UInt8(ascii: "]"))
        writeLiteral(",\"revision\":", into: &buffer)
        write(revision, into: &buffer)
    }

    /// Appends an update event.
    ///
    /// - Returns: where the `,"old":…` member was written (the empty range where
    ///   it would go when there is no `old`).
    static func writeUpdateEvent<Value: JSONWritable>(
        key: String, old: Value?, new: Value, version: Int64, author: String, session: String, sessionBound: Bool,
        ttl: Int64?, into buffer: inout [UInt8]
    ) -> Range<Int> {
        writeLiteral("{\"event\":\"update\",\"key\":", into: &buffer)
        write(key, into: &buffer)
        let oldStart = buffer.count
        if let old {
            writeLiteral(",\"old\":", into: &buffer)
            old.encode(into: &buffer)
        }
        let oldMember = oldStart..<buffer.count
        writeLiteral(",\"new\":", into: &buffer)
        new.encode(into: &buffer)
        writeChangeStamp(version: version, author: author, session: session, into: &buffer)
        if sessionBound { writeLiteral(",\"ephemeral\":true", into: &buffer) }
        writeTTL(ttl, into: &buffer)
        buffer.append(UInt8(ascii: "}"))
        return oldMember
    }

    /// Appends a delete event.
    ///
    /// - Returns: where the `,"old":…` member was written.
    static func writeDeleteEvent(
        key: String, old: some JSONWritable, version: Int64, author: String, session: String, reason: String?,
        into buffer: inout [UInt8]
    ) -> Range<Int> {
        writeLiteral("{\"event\":\"delete\",\"key\":", into: &buffer)
        write(key, into: &buffer)
        let oldStart = buffer.count
        writeLiteral(",\"old\":", into: &buffer)
        old.encode(into: &buffer)
        let oldMember = oldStart..<buffer.count
        writeChangeStamp(version: version, author: author, session: session, into: &buffer)
        if let reason {
            writeLiteral(",\"reason\":", into: &buffer)
            write(reason, into: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
        return oldMember
    }
}
