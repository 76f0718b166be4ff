import ObservatoryWire

/// A key's entry as the store holds it: in a box, so that looking one up, planning
/// a write against it and keeping it for a snapshot cost one reference count, not
/// a copy of its strings and value.
///
/// Immutable: a write puts a new box in the key's place, so a copy of the table
/// taken for a snapshot keeps seeing the old one. It carries its key's `hash`, so
/// the table compares hashes before bytes and grows without hashing keys again.
final class StoredEntry: Sendable {
    /// The entry.
    let entry: RawValueEntry
    /// The hash of `entry.key`, as `EntryKey` computes it.
    let hash: Int

    init(_ entry: RawValueEntry, hash: Int) {
        self.entry = entry
        self.hash = hash
    }

    /// `entry` as a new box, with the hash of its key: for a write whose key
    /// was hashed already.
    convenience init(_ entry: RawValueEntry, key: EntryKey) {
        self.init(entry, hash: key.hash)
    }
}
