/// What a mirror's rules tell of a conflict: the remote changes a local write
/// met, and how it ended (see the **Conflicts** rule of ``MirrorState``).
extension MirrorState {
    /// A remote change that a local write did not see.
    struct ReplacedChange {
        /// The server's value before it, as the mirror knew it (nil: the key did not exist, or not known).
        let old: Value?
        /// The value it set (nil: a delete, or a value that does not decode).
        let new: Value?
        /// Its revision.
        let version: Int64
        /// Who made it.
        let author: Author
    }

    /// Remote changes and the local write they met, once settled.
    struct Conflict {
        /// The changes the program had not seen when it wrote, oldest first.
        let replaced: [ReplacedChange]
        /// The value written.
        let written: Value?
        /// The version the write was applied at; nil when the server's value won
        /// and the write was dropped unsent.
        let acknowledged: Int64?
    }
}
