import ObservatoryWire

/// What the store's values and changes cost in memory, estimated, so that the
/// caps of docs/protocol.md "Memory" (`maxStoreBytes`, `historyBytes`) count what a
/// client makes the server hold.
///
/// A value is held as the bytes it was sent in (`EncodedJSON`): its bytes and a
/// heap header, whatever its shape. So the count is a few additions, never a walk.
enum Footprint {
    /// A heap object's header and allocator rounding, as counted for each
    /// out-of-line string and byte array.
    static let heapObject = 32
    /// What an entry costs besides its key, value, author and session: the table
    /// slot and the key index.
    static let entryOverhead = 160
    /// What a change in the history costs besides its values and its encoded event.
    static let changeOverhead = 96

    /// The bytes `value` holds beyond the slot it sits in.
    static func of(_ value: EncodedJSON) -> Int {
        heapObject + value.count
    }

    /// The bytes `text` holds on the heap: none when it fits in place.
    static func of(_ text: String) -> Int {
        let count = text.utf8.count
        return count > 15 ? heapObject + count : 0
    }

    /// The bytes an entry of the store holds: key, value, author, session and its
    /// slots, and for an expiring key its expiry's bookkeeping.
    static func of(entry: RawValueEntry) -> Int {
        entryOverhead + of(entry.key) + of(entry.value) + of(entry.author) + of(entry.session)
            + (entry.expiry.map(of(expiry:)) ?? 0)
    }

    /// What the expiry of an expiring key holds: its object, author and session,
    /// and its place in the store's `ExpiryMachine`.
    static func of(expiry: KeyExpiry) -> Int {
        heapObject + 48 + ExpiryMachine.bytesPerKey + of(expiry.author) + of(expiry.session)
    }

    /// The bytes a change counts against the history's cap: its event as sent
    /// (docs/protocol.md promises to keep "the last 64 MiB of them"); when nobody
    /// observed it and its event was never encoded, what its values hold (as the
    /// store counted its entry, or added up here).
    ///
    /// The values the change keeps alive come on top, at most about as much again:
    /// its new value (its old one is the previous change's new value, or an entry
    /// the store counted until this change replaced it).
    static func of(change: StoreChange) -> Int {
        if change.isEncoded { return changeOverhead + change.frameByteCount }
        if let held = change.heldBytes { return changeOverhead + held }
        var bytes = changeOverhead + of(change.key)
        switch change.event {
        case .update(_, let old, let new, _, _, _, _, _): bytes += of(new) + (old.map(of) ?? 0)
        case .delete(_, let old, _, _, _, _): bytes += of(old)
        case .shutdown: break
        }
        return bytes
    }
}
