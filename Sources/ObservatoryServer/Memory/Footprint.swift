import ObservatoryWire

/// What the store's values and changes cost in memory, estimated, so that the
/// caps of PROTOCOL.md "Memory" (`maxStoreBytes`, `historyBytes`) count what a
/// client makes the server hold rather than what it sent.
///
/// A value is held as a tree: a long string costs its UTF-8 bytes and a heap
/// header, but a number in an array costs a whole array slot, several times its
/// digits. The estimate follows the layout of `JSONValue` (a slot of
/// `MemoryLayout<JSONValue>.stride` bytes per element, strings of more than 15
/// bytes on the heap) and walks containers, never string bytes, so it costs a few
/// instructions per node: far less than parsing the value did.
enum Footprint {
    /// A heap object's header and allocator rounding, as counted for each
    /// out-of-line string, array and object.
    static let heapObject = 32
    /// What an entry costs besides its key and value: the table slot, the key
    /// index and the author's and session's strings.
    static let entryOverhead = 160
    /// What a change in the history costs besides its values and its encoded event.
    static let changeOverhead = 96

    /// The bytes `value` holds beyond the slot it sits in.
    static func of(_ value: JSONValue) -> Int {
        switch value {
        case .null, .bool, .integer, .double: return 0
        case .string(let text): return of(text)
        case .array(let elements):
            var bytes = heapObject + elements.count * slot
            for element in elements { bytes += of(element) }
            return bytes
        case .object(let object):
            var bytes = heapObject + object.count * memberSlot
            for member in object.members { bytes += of(member.key) + of(member.value) }
            return bytes
        }
    }

    /// The bytes `text` holds on the heap: none when it fits in place.
    static func of(_ text: String) -> Int {
        let count = text.utf8.count
        return count > 15 ? heapObject + count : 0
    }

    /// The bytes an entry of the store holds: key, value, author, session and its slots.
    static func of(entry: ValueEntry) -> Int {
        entryOverhead + of(entry.key) + slot + of(entry.value) + of(entry.author) + of(entry.session)
    }

    /// The bytes a change counts against the history's cap: its event as sent
    /// (PROTOCOL.md promises to keep "the last 64 MiB of them"); when nobody
    /// observed it and its event was never encoded, what its values hold (as the
    /// store counted its entry, or walked here).
    ///
    /// The trees the change keeps alive come on top, at most about as much again:
    /// its new value (its old one is the previous change's new value, or an entry
    /// the store counted until this change replaced it).
    static func of(change: StoreChange) -> Int {
        if change.isEncoded { return changeOverhead + change.frameByteCount }
        if let held = change.heldBytes { return changeOverhead + held }
        var bytes = changeOverhead + of(change.key)
        switch change.event {
        case .update(_, let old, let new, _, _, _, _): bytes += of(new) + (old.map(of) ?? 0)
        case .delete(_, let old, _, _, _, _): bytes += of(old)
        case .shutdown: break
        }
        return bytes
    }

    private static let slot = MemoryLayout<JSONValue>.stride
    private static let memberSlot = MemoryLayout<JSONObject.Member>.stride
}
