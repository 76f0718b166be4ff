import ObservatoryWire

/// What the shared state answers to a write: the reply's fields at once (the
/// local store), or a reply that follows (cluster mode, where etcd decides).
///
/// Either way the connection sends it only once the write's revision has passed
/// the revision gate.
enum WriteReply: Sendable {
    /// The reply's fields, known now.
    case ready(ReplyPayload)
    /// The reply follows: the state answers into this slot (the one the session
    /// gave it) once the write is decided; the connection sends nothing behind
    /// the slot until then.
    case pending(ReplySlot)
}
