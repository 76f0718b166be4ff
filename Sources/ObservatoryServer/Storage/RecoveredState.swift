import ObservatoryWire

/// What a data directory holds once read: the store's entries and counters, and
/// an account of every file, for the start-up log and `observatoryd --check`.
///
/// Its seventeen stored properties are what recovery reads back in one pass over
/// the files (entries, keys, counters, the history, the applied writes, the file
/// reports and warnings); it is a plain record handed from recovery to the store.
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
    /// The snapshot's keys, in the byte order it was written in.
    var snapshotKeys: [String] = []
    /// Keys the logs created (some may have been deleted again), in log order.
    var createdKeys: [String] = []
    /// Whether the logs deleted any key (else every snapshot key still exists).
    var logsDeletedKeys = false
    /// The last revision.
    var revision: Int64 = 0
    /// The history's name; new when the directory was empty.
    var epoch: String
    /// Session numbers up to this one may have been used already.
    var sessionReservation: Int64 = 0
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
    /// The most recent changes read, as events, oldest first; at most twice the
    /// history's capacity is kept while reading, and `history(capacity:)` takes the last ones.
    private(set) var recentEvents: [(event: RawEvent, at: Int64)] = []
    /// The time of the change records read next (the last `changeTime` record);
    /// 0 until one is read, so changes stored without times get `at` 0.
    var changeTime: Int64 = 0
    /// How many recent changes to keep.
    let historyChanges: Int
    /// The writes with a `requestId` still within their retention.
    var appliedWrites: AppliedWrites

    init(
        epoch: String, historyChanges: Int = ServerLimits().historyChanges,
        maxRequestIds: Int = ServerLimits().maxRequestIds
    ) {
        self.epoch = epoch
        self.historyChanges = max(1, historyChanges)
        appliedWrites = AppliedWrites(capacity: maxRequestIds)
    }

    /// Keeps `event` among the recent changes, at `changeTime`. Events are kept as
    /// they are, not encoded: only the last `historyChanges` of a long log are ever sent.
    mutating func remember(_ event: RawEvent) {
        recentEvents.append((event, changeTime))
        if recentEvents.count >= historyChanges * 2 {
            recentEvents.removeFirst(recentEvents.count - historyChanges)
        }
    }

    /// The history of recent changes the store starts with: the last
    /// `capacity` changes read, or an empty one after the last revision.
    func history(capacity: Int) -> ChangeHistory {
        var kept = recentEvents.suffix(capacity).compactMap { StoreChange($0.event, at: $0.at) }
        // A batch cut by the cap is left out whole: the history holds all of a revision or none.
        if let first = kept.first, recentEvents.count > capacity,
            StoreChange(recentEvents[recentEvents.count - capacity - 1].event, at: 0)?.version == first.version
        {
            kept.removeAll { $0.version == first.version }
        }
        var history = ChangeHistory(capacity: capacity, after: (kept.first?.version ?? revision + 1) - 1)
        for change in kept { history.append(change) }
        return history
    }

    /// The index of the keys that exist: the snapshot's keys (already in order)
    /// merged with the keys the logs created, so that only those need sorting.
    func keyIndex() -> OrderedKeyIndex {
        let snapshot = snapshotKeys
        let created = Self.sortedWithoutDuplicates(createdKeys)
        var merged: [String] = []
        merged.reserveCapacity(entries.count)
        var (next, nextCreated) = (0, 0)
        while next < snapshot.count || nextCreated < created.count {
            let key: String
            if nextCreated == created.count
                || (next < snapshot.count && !StoreKey.byteOrder(created[nextCreated], snapshot[next]))
            {
                key = snapshot[next]
                next += 1
                // A key deleted and created again by the logs is in both lists: take it once.
                if nextCreated < created.count, StoreKey(created[nextCreated]) == StoreKey(key) { nextCreated += 1 }
            } else {
                key = created[nextCreated]
                nextCreated += 1
            }
            if !logsDeletedKeys || entries[key] != nil { merged.append(key) }
        }
        return OrderedKeyIndex(sortedKeys: merged)
    }

    private static func sortedWithoutDuplicates(_ keys: [String]) -> [String] {
        let sorted = keys.sorted(by: StoreKey.byteOrder)
        var unique: [String] = []
        unique.reserveCapacity(sorted.count)
        for key in sorted where unique.last.map({ StoreKey($0) != StoreKey(key) }) ?? true {
            unique.append(key)
        }
        return unique
    }

    /// A new random epoch: 12 hexadecimal digits.
    static func newEpoch() -> String {
        let value = UInt64.random(in: 0..<(1 << 48))
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 12 - digits.count) + digits
    }
}
