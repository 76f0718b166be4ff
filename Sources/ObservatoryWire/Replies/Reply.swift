/// The server's answer to one request: success with the op's fields, or failure
/// with an error. Exactly one per request, in request order.
///
/// ```swift
/// Reply.success(id: .integer(7), .set(key: "a", version: 3, changed: true)).encoded()
/// // {"ok":true,"id":7,"key":"a","version":3,"changed":true}
/// Reply.failure(id: nil, .badFrame("…")).encoded()
/// // {"ok":false,"id":null,"error":{"code":"bad_frame","message":"…"}}
/// ```
public enum Reply: Sendable, Equatable {
    /// `{"ok":true,"id":…,…fields}`.
    case success(id: RequestID?, ReplyPayload)
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
