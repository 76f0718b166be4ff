/// When an entry's key expires, as each end knows it: the seconds left that a
/// message carries (`"ttl"`), or the ``KeyExpiry`` a server keeps (the deadline,
/// and who set it).
///
/// One word wide in an entry, whichever it holds (the seconds are boxed; a
/// client reads them from a message, and a store keeps deadlines): a store holds
/// millions of entries, and most do not expire.
public enum EntryExpiration: Sendable, Hashable {
    /// The whole seconds the key had left when the message was made.
    indirect case secondsLeft(Int64)
    /// The deadline a server keeps, with the write that set it.
    case deadline(KeyExpiry)
}
