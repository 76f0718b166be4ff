/// The server's answer to one request: success with the op's fields, or failure
/// with an error. Exactly one per request, in request order.
///
/// Generic over how the values it carries (a `get`, an `observe` snapshot, a
/// `history` page) are held, as ``ServerEvent`` is: ``Reply`` carries
/// `JSONValue`s (what clients decode), ``RawReply`` carries `EncodedJSON` (what a
/// server that keeps values as bytes answers with). The bytes of a ``RawReply``
/// are those of the equivalent ``Reply`` when every value's bytes are canonical
/// (`EncodedJSON/isCanonical`); otherwise each value is written as it was sent,
/// where ``Reply`` would write its compact encoding (`1.0` stays `1.0`,
/// `"\u00e9"` stays escaped, spaces inside it stay).
///
/// ```swift
/// Reply.success(id: .integer(7), .set(key: "a", version: 3, changed: true)).encoded()
/// // {"ok":true,"id":7,"key":"a","version":3,"changed":true}
/// Reply.failure(id: nil, .badFrame("…")).encoded()
/// // {"ok":false,"id":null,"error":{"code":"bad_frame","message":"…"}}
/// ```
public enum ServerReply<Value: JSONWritable>: Sendable, Equatable {
    /// `{"ok":true,"id":…,…fields}`.
    case success(id: RequestID?, ServerReplyPayload<Value>)
    /// `{"ok":false,"id":…,"error":{"code":…,"message":…[,"version":…][,"revision":…][,"index":…]}}`.
    case failure(id: RequestID?, WireError)

    /// The echoed request id (`nil` is sent as `null`).
    public var id: RequestID? {
        switch self {
        case .success(let id, _), .failure(let id, _): return id
        }
    }

    /// The reply as one compact JSON object, without the LF.
    public func encoded() -> [UInt8] {
        FrameBuilder.object { encode(into: &$0) }
    }

    /// The reply as one frame: ``encoded()`` followed by the LF that ends it.
    public func encodedLine() -> [UInt8] {
        FrameBuilder.object { encodeLine(into: &$0) }
    }

    /// Appends the reply as one frame, the bytes of ``encodedLine()``, to `buffer`:
    /// how a server copies a reply straight into a connection's output, without an
    /// array of its own.
    ///
    /// A write's success goes through ``encodeWriteLine(id:key:version:changed:duplicate:into:)``,
    /// a batch's through ``encodeBatchLine(id:revision:results:duplicate:into:)``;
    /// any other reply is written field by field, as ``encode(into:)`` writes it.
    public func encodeLine(into buffer: inout [UInt8]) {
        switch self {
        case .success(let id, .set(let key, let version, let changed, let duplicate)):
            Self.encodeWriteLine(
                id: id, key: key, version: version, changed: changed, duplicate: duplicate, into: &buffer)
        case .success(let id, .delete(let key, let version, let duplicate)):
            Self.encodeWriteLine(id: id, key: key, version: version, changed: nil, duplicate: duplicate, into: &buffer)
        case .success(let id, .batch(let revision, let results, let duplicate)):
            Self.encodeBatchLine(id: id, revision: revision, results: results, duplicate: duplicate, into: &buffer)
        default:
            encode(into: &buffer)
            buffer.append(UInt8(ascii: "\n"))
        }
    }

    /// Appends the line of a write's success to `buffer`: the bytes of ``encodedLine()``
    /// for `.success(id: id, .set(key: key, version: version, changed: changed, duplicate: duplicate))`,
    /// or with `changed` nil for `.delete(key: key, version: version, duplicate: duplicate)`.
    ///
    /// For a server that matched the reply's fields already: matching the reply
    /// again copied its payload through the generic type's metadata (about 250
    /// instructions a set, callgrind). With an integer id (or none) and a key
    /// without bytes to escape, the line is written in one pass into the buffer's
    /// spare room; otherwise field by field. Inlinable, so that it costs the same for
    /// either representation of values.
    @inlinable
    public static func encodeWriteLine(
        id: RequestID?, key: String, version: Int64, changed: Bool?, duplicate: Bool, into buffer: inout [UInt8]
    ) {
        if ReplyLine.appendWrite(
            id: id, key: key, version: version, changed: changed, duplicate: duplicate, to: &buffer)
        {
            return
        }
        let payload: ServerReplyPayload<Value> =
            if let changed {
                .set(key: key, version: version, changed: changed, duplicate: duplicate)
            } else {
                .delete(key: key, version: version, duplicate: duplicate)
            }
        ServerReply.success(id: id, payload).encode(into: &buffer)
        buffer.append(UInt8(ascii: "\n"))
    }

    /// Appends the line of a batch's success to `buffer`: the bytes of ``encodedLine()``
    /// for `.success(id: id, .batch(revision: revision, results: results, duplicate: duplicate))`,
    /// from the fields a server matched already (see
    /// ``encodeWriteLine(id:key:version:changed:duplicate:into:)``). With an integer
    /// id (or none) and keys without bytes to escape, the line is written in one
    /// pass into the buffer's spare room; otherwise field by field.
    @inlinable
    public static func encodeBatchLine(
        id: RequestID?, revision: Int64, results: [BatchResult], duplicate: Bool, into buffer: inout [UInt8]
    ) {
        if ReplyLine.appendBatch(id: id, revision: revision, results: results, duplicate: duplicate, to: &buffer) {
            return
        }
        ServerReply.success(id: id, .batch(revision: revision, results: results, duplicate: duplicate))
            .encode(into: &buffer)
        buffer.append(UInt8(ascii: "\n"))
    }

    /// Appends the reply as in ``encoded()``; bytes are written directly, without a `JSONValue` tree.
    public func encode(into buffer: inout [UInt8]) {
        switch self {
        case .success(let id, let payload):
            JSONWriter.writeLiteral("{\"ok\":true,\"id\":", into: &buffer)
            RequestID.write(id, into: &buffer)
            payload.encodeFields(into: &buffer)
        case .failure(let id, let error):
            JSONWriter.writeLiteral("{\"ok\":false,\"id\":", into: &buffer)
            RequestID.write(id, into: &buffer)
            JSONWriter.writeLiteral(",\"error\":{\"code\":", into: &buffer)
            JSONWriter.write(error.code.rawValue, into: &buffer)
            JSONWriter.writeLiteral(",\"message\":", into: &buffer)
            JSONWriter.write(error.message, into: &buffer)
            if let currentVersion = error.currentVersion {
                JSONWriter.writeLiteral(",\"version\":", into: &buffer)
                JSONWriter.write(currentVersion, into: &buffer)
            }
            if let revision = error.revision {
                JSONWriter.writeLiteral(",\"revision\":", into: &buffer)
                JSONWriter.write(revision, into: &buffer)
            }
            if let index = error.index {
                JSONWriter.writeLiteral(",\"index\":", into: &buffer)
                JSONWriter.write(Int64(index), into: &buffer)
            }
            buffer.append(UInt8(ascii: "}"))
        }
        buffer.append(UInt8(ascii: "}"))
    }
}

/// A reply whose values are `JSONValue`s: what clients decode, and what a server
/// answers with when the reply carries no value.
public typealias Reply = ServerReply<JSONValue>

/// A reply whose values are `EncodedJSON`, copied as they were sent: a server's
/// answer to a `get`, an `observe` or a `history`.
///
/// ```swift
/// RawReply.success(id: .integer(7), .get(entry)).encodedLine()
/// // {"ok":true,"id":7,"key":"sky.color","value":{"r":255},"version":3,"author":"alice","session":"s1"}\n
/// ```
public typealias RawReply = ServerReply<EncodedJSON>
