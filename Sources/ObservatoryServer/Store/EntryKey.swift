/// A key with the hash its entry is filed under in `EntryTable`, computed once
/// per write and carried from planning to applying, so that a write hashes its
/// key's bytes once.
///
/// The hash is Swift's `Hasher` over the key's UTF-8 bytes: seeded anew in every
/// process, so clients cannot choose keys that collide. Keys are compared by
/// their bytes (`StoreKey`), never as Unicode strings.
struct EntryKey: Sendable {
    /// The key as sent.
    let text: String
    /// The seeded hash of the key's bytes.
    let hash: Int

    /// No key: what a plan that writes none carries (a duplicate's answer), never looked up.
    static let none = EntryKey(text: "", hash: 0)

    private init(text: String, hash: Int) {
        self.text = text
        self.hash = hash
    }

    init(_ text: String) {
        self.text = text
        var hasher = Hasher()
        // The bytes read where they are (a native or small string); a bridged one is made contiguous first.
        let read: Void? = text.utf8.withContiguousStorageIfAvailable {
            hasher.combine(bytes: UnsafeRawBufferPointer($0))
        }
        if read == nil {
            var bytes = text
            bytes.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
        hash = hasher.finalize()
    }

    /// Whether `entry` is this key's: same hash, same bytes.
    func matches(_ entry: StoredEntry) -> Bool {
        entry.hash == hash && StoreKey.sameBytes(entry.entry.key, text)
    }
}
