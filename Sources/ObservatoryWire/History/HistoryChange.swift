/// One change of a `history` reply: its event exactly as it was first sent,
/// and `at`, the server's clock when the change was made.
///
/// On the wire it is the event object with one more member,
/// `{"event":"update",…,"session":"s3","at":1764301234567}`.
/// Generic over how values are held, as ``ServerEvent`` is: a server writes
/// `EncodedJSON` values as they were sent, a client reads `JSONValue`s.
public struct HistoryChange<Value: JSONWritable>: Sendable, Equatable {
    /// The change's event (an update or a delete).
    public var event: ServerEvent<Value>
    /// When the change was made: milliseconds since 1970-01-01 UTC, by the
    /// server's clock (0 when the server does not know, as for a change stored
    /// by a version that kept no times).
    public var at: Int64

    /// A change with its event and time.
    public init(event: ServerEvent<Value>, at: Int64) {
        self.event = event
        self.at = at
    }

    /// Appends the event's object with `"at"` as its last member.
    public func encode(into buffer: inout [UInt8]) {
        event.encode(into: &buffer)
        // The event ends with its closing brace: `at` goes before it.
        buffer.removeLast()
        JSONWriter.writeLiteral(",\"at\":", into: &buffer)
        JSONWriter.write(at, into: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }
}

extension HistoryChange where Value == JSONValue {
    /// Reads a change of a `history` reply: an update or delete event with `at`.
    static func decode(from fields: FieldReader<JSONObject>) throws(WireError) -> HistoryChange {
        let name = try fields.requiredString("event")
        let event = try ServerEvent<JSONValue>.decode(name: name, from: fields) { fields.source.value(of: $0) }
        if case .shutdown = event {
            throw fields.failure("event", "must be update or delete in a history reply")
        }
        return HistoryChange(event: event, at: try fields.requiredInteger("at", minimum: 0))
    }
}

extension JSONWriter {
    /// Appends a `history` reply's fields, each preceded by a comma.
    static func writeHistoryFields<Value>(
        changes: [HistoryChange<Value>], more: Bool, revision: Int64, horizon: Int64, into buffer: inout [UInt8]
    ) {
        writeLiteral(",\"changes\":[", into: &buffer)
        for (index, change) in changes.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            change.encode(into: &buffer)
        }
        writeLiteral(more ? "],\"more\":true" : "],\"more\":false", into: &buffer)
        writeLiteral(",\"revision\":", into: &buffer)
        write(revision, into: &buffer)
        writeLiteral(",\"horizon\":", into: &buffer)
        write(horizon, into: &buffer)
    }
}
