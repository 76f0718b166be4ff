import ObservatoryWire

/// The most recent changes, in revision order, so that an `observe` with
/// `fromRevision` can replay what a client missed (docs/protocol.md, "Resume").
///
/// At most `capacity` changes and at most `byteLimit` bytes of them (as
/// `Footprint` counts a change: its event as sent), each kept exactly as it was
/// first sent (the `StoreChange` with its encoded frame); the oldest are forgotten
/// first. Both caps matter: a count alone lets a client that sets large values
/// again and again fill memory long before the count is reached. The newest change
/// is always kept, whatever its size.
///
/// `floor` is the revision below which changes are no longer held: every change
/// after `floor` up to `newest` is here, none missing, so a resume from any
/// revision in `floor...newest` is exact.
///
/// A plain value; `SharedStore` keeps it behind its lock and appends every change
/// it makes, in the same step as the change.
struct ChangeHistory: Sendable {
    /// The most changes held.
    let capacity: Int
    /// The most bytes of changes held (`Footprint.of(change:)` each).
    private(set) var byteLimit: Int
    /// The held changes from `start` on; the slots before it were forgotten and
    /// are dropped in bulk, so forgetting one costs O(1) amortized.
    private var changes: [StoreChange] = []
    private var start = 0
    /// The bytes of the changes held.
    private(set) var bytes = 0
    /// Changes after this revision are all held.
    private(set) var floor: Int64
    /// The revision of the newest change, or `floor` when none is held.
    private(set) var newest: Int64

    /// An empty history that starts after `revision`: a resume from an older
    /// revision cannot be served, since those changes were never held.
    init(capacity: Int, byteLimit: Int = ServerLimits().historyBytes, after revision: Int64) {
        self.capacity = max(1, capacity)
        self.byteLimit = max(0, byteLimit)
        floor = revision
        newest = revision
    }

    /// The number of changes held.
    var count: Int {
        changes.count - start
    }

    /// Records that this history has no change up to `revision`: a cluster node's
    /// cache, whose revisions (etcd's) skip the numbers of changes outside its
    /// prefix, says so before each change and after each batch its watch applied,
    /// so that a gap its watch vouches for does not start the history over.
    mutating func skip(through revision: Int64) {
        newest = max(newest, revision)
    }

    /// Adds the next change, forgetting the oldest ones beyond the caps: one at
    /// the revision after `newest`, or another of the batch at `newest`. A change
    /// that does not follow (which the store never makes) starts the history over
    /// after it, so no gap is ever passed off as complete.
    mutating func append(_ change: StoreChange) {
        let isSameBatch = change.version == newest && count > 0
        guard change.version == newest + 1 || isSameBatch else {
            self = ChangeHistory(capacity: capacity, byteLimit: byteLimit, after: change.version - 1)
            return append(change)
        }
        newest = change.version
        changes.append(change)
        bytes += Footprint.of(change: change)
        forgetBeyondCaps()
    }

    /// Lowers or raises the byte cap, forgetting the oldest changes beyond it.
    mutating func limitBytes(to byteLimit: Int) {
        self.byteLimit = max(0, byteLimit)
        forgetBeyondCaps()
    }

    /// The changes of `target` after `revision`, oldest first, or `nil` when some
    /// change after `revision` is no longer held (or `revision` is in the future).
    func changes(of target: Target, after revision: Int64) -> [StoreChange]? {
        guard revision >= floor, revision <= newest else { return nil }
        // The first change after `revision`, by binary search: versions grow
        // along the array, though not always by one (`skip(through:)`).
        var (low, high) = (start, changes.count)
        while low < high {
            let middle = (low + high) / 2
            if changes[middle].version <= revision {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return changes[low...].filter { Self.matches($0.key, target) }
    }

    /// Every change held after `floor`, oldest first (for snapshots): the rest
    /// of a batch whose first changes were forgotten is left out, so a history
    /// read back from a snapshot holds a batch whole or not at all.
    var all: [StoreChange] {
        changes[start...].filter { $0.version > floor }
    }

    /// The held changes in place, oldest first: a slice, not a copy.
    var heldChanges: ArraySlice<StoreChange> {
        changes[start...]
    }

    private mutating func forgetBeyondCaps() {
        while count > capacity || (bytes > byteLimit && count > 1) {
            let oldest = changes[start]
            bytes -= Footprint.of(change: oldest)
            floor = oldest.version
            start += 1
        }
        // Drop the forgotten slots once they are half the array, so that its
        // memory and the copies it costs stay in proportion to what is held.
        if start > 64 && start * 2 >= changes.count {
            changes.removeFirst(start)
            start = 0
        }
    }

    /// Whether a change of `key` belongs to `target` (also what a cluster replay keeps).
    static func matches(_ key: String, _ target: Target) -> Bool {
        switch target {
        case .key(let observed): StoreKey(key) == StoreKey(observed)
        case .prefix(let prefix): StoreKey(key).hasBytePrefix(prefix)
        }
    }
}
