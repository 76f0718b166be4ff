/// An `update` or `delete` event with its values as ``EncodedJSON``: what a
/// server that keeps values as bytes sends to observers. `shutdown` carries no
/// value and is an ``Event``.
///
/// The bytes are those of the equivalent ``Event`` when every value's bytes are
/// canonical (``EncodedJSON/isCanonical``); otherwise each value is written as it
/// was sent, where ``Event`` would write its compact encoding (`1.0` stays `1.0`,
/// which PROTOCOL.md allows: a value is "returned as it was sent").
public enum RawEvent: Sendable, Equatable {
    /// A key was created (`old` is `nil`, and absent on the wire) or changed;
    /// as ``Event/update(key:old:new:version:author:session:ephemeral:)``.
    case update(
        key: String, old: EncodedJSON?, new: EncodedJSON, version: Int64, author: String, session: String,
        ephemeral: Bool = false)
    /// A key was deleted; as ``Event/delete(key:old:version:author:session:reason:)``.
    case delete(key: String, old: EncodedJSON, version: Int64, author: String, session: String, reason: String? = nil)

    /// The event as one compact JSON object, without the LF.
    public func encoded() -> [UInt8] {
        FrameBuilder.object { encode(into: &$0) }
    }

    /// The event as one frame: ``encoded()`` followed by the LF that ends it.
    public func encodedLine() -> [UInt8] {
        FrameBuilder.line { encode(into: &$0) }
    }

    /// Appends the event as in ``encoded()``, copying each value's bytes.
    ///
    /// - Returns: where the `,"old":…` member was written in `buffer` (for an update
    ///   without `old`, the empty range where it would go), as ``Event/encode(into:)`` returns it.
    @discardableResult
    public func encode(into buffer: inout [UInt8]) -> Range<Int> {
        switch self {
        case .update(let key, let old, let new, let version, let author, let session, let ephemeral):
            return JSONWriter.writeUpdateEvent(
                key: key, old: old, new: new, version: version, author: author, session: session,
                ephemeral: ephemeral, into: &buffer)
        case .delete(let key, let old, let version, let author, let session, let reason):
            return JSONWriter.writeDeleteEvent(
                key: key, old: old, version: version, author: author, session: session, reason: reason,
                into: &buffer)
        }
    }
}
