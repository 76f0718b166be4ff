/// The success replies that carry values, with the values as `EncodedJSON`:
/// a `get` and an `observe` snapshot. Every other reply carries no value and is a ``Reply``.
///
/// The bytes are those of the equivalent ``Reply`` (``ReplyPayload/get(_:)``,
/// ``ReplyPayload/observe(values:revision:resumed:)``) when every value's bytes are
/// canonical (`EncodedJSON/isCanonical`); otherwise each value is written as it
/// was sent, where ``Reply`` would write its compact encoding (`1.0` stays `1.0`,
/// `"\u00e9"` stays escaped, spaces inside it stay).
///
/// ```swift
/// RawReply.get(id: .integer(7), entry).encodedLine()
/// // {"ok":true,"id":7,"key":"sky.color","value":{"r":255},"version":3,"author":"alice","session":"s1"}\n
/// ```
public enum RawReply: Sendable, Equatable {
    /// `{"ok":true,"id":…,"key":…,"value":…,"version":…,"author":…,"session":…}`.
    case get(id: RequestID?, RawValueEntry)
    /// `{"ok":true,"id":…,"values":[…],"revision":…}`, with `resumed` as in
    /// ``ReplyPayload/observe(values:revision:resumed:)`` (no `values` when resumed).
    case observe(id: RequestID?, values: [RawValueEntry], revision: Int64, resumed: Bool? = nil)
    /// `{"ok":true,"id":…,"changes":[…],"more":…,"revision":…,"horizon":…}`, as
    /// ``ReplyPayload/history(changes:more:revision:horizon:)`` with each event's values as sent.
    case history(id: RequestID?, changes: [HistoryChange<EncodedJSON>], more: Bool, revision: Int64, horizon: Int64)

    /// The reply as one compact JSON object, without the LF.
    public func encoded() -> [UInt8] {
        FrameBuilder.object { encode(into: &$0) }
    }

    /// The reply as one frame: ``encoded()`` followed by the LF that ends it.
    public func encodedLine() -> [UInt8] {
        FrameBuilder.line { encode(into: &$0) }
    }

    /// Appends the reply as one frame, the bytes of ``encodedLine()``, to `buffer`:
    /// how a server copies a reply straight into a connection's output.
    public func encodeLine(into buffer: inout [UInt8]) {
        encode(into: &buffer)
        buffer.append(UInt8(ascii: "\n"))
    }

    /// Appends the reply as in ``encoded()``, copying each value's bytes.
    public func encode(into buffer: inout [UInt8]) {
        switch self {
        case .get(let id, let entry):
            JSONWriter.writeLiteral("{\"ok\":true,\"id\":", into: &buffer)
            RequestID.write(id, into: &buffer)
            buffer.append(UInt8(ascii: ","))
            entry.encodeFields(into: &buffer)
        case .observe(let id, let values, let revision, let resumed):
            JSONWriter.writeLiteral("{\"ok\":true,\"id\":", into: &buffer)
            RequestID.write(id, into: &buffer)
            JSONWriter.writeObserveFields(values: values, revision: revision, resumed: resumed, into: &buffer) {
                entry, buffer in entry.encodeFields(into: &buffer)
            }
        case .history(let id, let changes, let more, let revision, let horizon):
            JSONWriter.writeLiteral("{\"ok\":true,\"id\":", into: &buffer)
            RequestID.write(id, into: &buffer)
            JSONWriter.writeHistoryFields(
                changes: changes, more: more, revision: revision, horizon: horizon, into: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
    }
}
