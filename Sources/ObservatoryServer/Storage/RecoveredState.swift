import ObservatoryWire

/// What a data directory holds once read: the store's entries and counters, and
/// an account of every file, for the start-up log and `observatoryd --check`.
struct RecoveredState: Sendable {
    /// What one data file held.
    struct FileReport: Sendable, Equatable {
        /// The file's name in the directory.
        var name: String
        /// Its size in bytes, as found.
        var bytes: Int
        /// Whole records read.
        var records: Int
        /// The revisions of the first and last change in it, if any.
        var revisions: ClosedRange<Int64>?
        /// A torn tail that was (or, when only checking, would be) cut, as "offset: reason".
        var tornTail: String?
    }

    /// The entries by key.
    var entries = EntryTable()
    /// The last revision.
    var revision: Int64 = 0
    /// The history's name; new when the directory was empty.
    var epoch: String
    /// Session numbers up to this one may have been used already.
    var sessionLease: Int64 = 0
    /// Whether the directory held no data files (a new history begins).
    var isNew = true
    /// The sequence number the next log takes.
    var nextSequence: Int64 = 1
    /// The newest snapshot's sequence number, if there is one.
    var snapshotSequence: Int64?
    /// Bytes of the logs written since the newest snapshot (they count toward compaction).
    var logBytes = 0
    /// Changes replayed from logs.
    var replayedChanges = 0
    /// The files read, oldest first.
    var files: [FileReport] = []
    /// Things an operator should hear about (a torn tail cut, obsolete files removed).
    var warnings: [String] = []

    init(epoch: String) {
        self.epoch = epoch
    }

    /// A new random epoch: 12 hexadecimal digits.
    static func newEpoch() -> String {
        let value = UInt64.random(in: 0..<(1 << 48))
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 12 - digits.count) + digits
    }
}
