/// A message the server pushes without a request: a change of an observed key, or shutdown.
///
/// Encoded exactly as docs/protocol.md shows, for example
/// `{"event":"update","key":"sky.color","old":"blue","new":"red","version":12,"author":"alice","session":"s3"}`.
/// An event has `"event"` and never `"ok"`, which is how clients tell it from a reply.
///
/// Generic over how values are held, so that both kinds of events are one type
/// with one encoding: ``Event`` carries `JSONValue`s, ``RawEvent`` carries
/// `EncodedJSON` (what a server that keeps values as bytes sends to observers).
/// The bytes of a ``RawEvent`` are those of the equivalent ``Event`` when every
/// value's bytes are canonical (`EncodedJSON/isCanonical`); otherwise each value
/// is written as it was sent, where ``Event`` would write its compact encoding
/// (`1.0` stays `1.0`, which docs/protocol.md allows: a value is "returned as it was sent").
public enum ServerEvent<Value: JSONWritable>: Sendable, Equatable {
    /// A key was created (`old` is `nil`, and absent on the wire) or changed.
    /// `sessionBound` is true when the key is bound to its writer's session
    /// (`"ephemeral":true` on the wire, absent otherwise); `ttl`, for an
    /// expiring key, is the seconds it has left (`"ttl"`, absent otherwise).
    case update(
        key: String, old: Value?, new: Value, version: Int64, author: String, session: String,
        sessionBound: Bool = false, ttl: Int64? = nil)
    /// A key was deleted; `old` is its last value. `reason` is ``sessionEnded``
    /// when the server deleted a session-bound key because its session ended
    /// (the author and session are then the owner's), ``expired`` when an
    /// expiring key ran out (the author and session are those of the write that
    /// set its expiry), `nil` for an ordinary delete.
    case delete(key: String, old: Value, version: Int64, author: String, session: String, reason: String? = nil)
    /// The server is shutting down and will close the connection.
    case shutdown

    /// The `reason` of a delete event whose key was bound to a session that ended.
    public static var sessionEnded: String { "session_ended" }

    /// The `reason` of a delete event whose key expired (`ttl` on `set`).
    public static var expired: String { "expired" }

    /// The event as one compact JSON object, without the LF.
    public func encoded() -> [UInt8] {
        FrameBuilder.object { encode(into: &$0) }
    }

    /// The event as one frame: ``encoded()`` followed by the LF that ends it.
    public func encodedLine() -> [UInt8] {
        FrameBuilder.line { encode(into: &$0) }
    }

    /// Appends the event as in ``encoded()``, writing bytes directly.
    ///
    /// - Returns: where the `,"old":…` member was written in `buffer` (for an update
    ///   without `old`, the empty range where it would go), so that a server can
    ///   splice the `old` of one event into another without encoding values again.
    @discardableResult
    public func encode(into buffer: inout [UInt8]) -> Range<Int> {
        switch self {
        case .update(let key, let old, let new, let version, let author, let session, let sessionBound, let ttl):
            return JSONWriter.writeUpdateEvent(
                key: key, old: old, new: new, version: version, author: author, session: session,
                sessionBound: sessionBound, ttl: ttl, into: &buffer)
        case .delete(let key, let old, let version, let author, let session, let reason):
            return JSONWriter.writeDeleteEvent(
                key: key, old: old, version: version, author: author, session: session, reason: reason,
                into: &buffer)
        case .shutdown:
            let start = buffer.count
            JSONWriter.writeLiteral("{\"event\":\"shutdown\"}", into: &buffer)
            return start..<start
        }
    }
}

/// An event whose values are `JSONValue`s: what clients decode and what the
/// server sends to observers.
public typealias Event = ServerEvent<JSONValue>

/// An event whose values are `EncodedJSON`, copied as they were sent.
public typealias RawEvent = ServerEvent<EncodedJSON>

extension ServerEvent {
    /// Reads an event from a server message whose `"event"` field was `name`;
    /// `value` gives the `old` or `new` member as `Value` (nil when absent), so
    /// that events read as trees and as bytes follow one set of rules.
    static func decode(name: String, from fields: FieldReader<JSONObject>, value: (String) -> Value?)
        throws(WireError) -> ServerEvent
    {
        func required(_ field: String) throws(WireError) -> Value {
            guard let found = value(field) else {
                throw fields.failure(field, FieldReader<JSONObject>.requiredValueProblem)
            }
            return found
        }
        switch name {
        case "update":
            return .update(
                key: try fields.requiredString("key"),
                old: value("old"),
                new: try required("new"),
                version: try fields.requiredInteger("version", minimum: 0),
                author: try fields.requiredString("author"),
                session: try fields.requiredString("session"),
                sessionBound: try fields.optionalBool("ephemeral") ?? false,
                ttl: try fields.optionalInteger("ttl", minimum: 0)
            )
        case "delete":
            return .delete(
                key: try fields.requiredString("key"),
                old: try required("old"),
                version: try fields.requiredInteger("version", minimum: 0),
                author: try fields.requiredString("author"),
                session: try fields.requiredString("session"),
                reason: try fields.optionalString("reason")
            )
        case "shutdown":
            return .shutdown
        default:
            throw fields.failure("event", "names an unknown event \"\(name)\"; expected update, delete or shutdown")
        }
    }
}
