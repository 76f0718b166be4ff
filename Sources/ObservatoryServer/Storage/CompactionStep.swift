/// The steps of a compaction, in order. After each, a test may stop storage as a
/// crash would (`StorageOptions.afterCompactionStep`), to prove that a crash at
/// any step loses nothing.
public enum CompactionStep: String, Sendable, CaseIterable {
    /// A new log was started; changes go there from now on.
    case logStarted
    /// The snapshot's temporary file holds the whole store.
    case snapshotWritten
    /// The temporary file is on disk.
    case snapshotSynced
    /// The temporary file was renamed to its final name.
    case snapshotRenamed
    /// The rename is on disk.
    case directorySynced
    /// The files the snapshot replaces were removed.
    case oldFilesRemoved
}
