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
    /// The held changes, a ring: the oldest at `oldest`, the others after it,
    /// wrapping around; the other slots are `nil`. An append stores into the slot
    /// after the newest and a forget empties the oldest's slot, so neither moves
    /// the others; the ring doubles (up to `capacity`) only when every slot is full.
    private var ring: [StoreChange?] = []
    private var oldest = 0
    /// The number of changes held.
    private(set) var count = 0
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
        if count == ring.count { grow() }
        ring[slot(count)] = change
        count += 1
        bytes += Footprint.of(change: change)
        if count > capacity || bytes > byteLimit { forgetBeyondCaps() }
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
        var found: [StoreChange] = []
        for index in firstIndex(after: revision)..<count {
            let change = held(index)
            if Self.matches(change.key, target) { found.append(change) }
        }
        return found
    }

    /// Every change held after `floor`, oldest first (for snapshots): the rest
    /// of a batch whose first changes were forgotten is left out, so a history
    /// read back from a snapshot holds a batch whole or not at all.
    var all: [StoreChange] {
        (0..<count).map(held).filter { $0.version > floor }
    }

    /// The held change at `index` (0 for the oldest, up to `count - 1`).
    func held(_ index: Int) -> StoreChange {
        // Every slot from the oldest on, `count` of them, holds a change.
        guard let change = ring[slot(index)] else { preconditionFailure("a held slot of the history is empty") }
        return change
    }

    /// The index among the held changes of the first one with a version above
    /// `revision` (`count` when none is), by binary search: versions grow from
    /// the oldest to the newest, though not always by one (`skip(through:)`).
    func firstIndex(after revision: Int64) -> Int {
        var (low, high) = (0, count)
        while low < high {
            let middle = (low + high) / 2
            if held(middle).version <= revision {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }

    /// The ring slot of the held change at `index`, which is below the ring's size.
    private func slot(_ index: Int) -> Int {
        let slot = oldest + index
        return slot < ring.count ? slot : slot - ring.count
    }

    /// Doubles the ring (up to `capacity` slots, and one more so that the change
    /// that goes over the cap can be stored before the oldest is forgotten);
    /// called only when every slot holds a change. The array grows in place
    /// (its changes moved, not retained), and the changes that wrapped around to
    /// its start are swapped with empty slots past its old end, so the held ones
    /// stay in order from `oldest` on.
    private mutating func grow() {
        let full = ring.count
        let size = min(max(16, full * 2), capacity + 1)
        if full + oldest > size {
            // The last growth, to the cap, has no room past the end for the
            // wrapped changes: the ring is put in order by copying, once.
            ring = Array(ring[oldest...] + ring[..<oldest])
            oldest = 0
        }
        ring.reserveCapacity(size)
        ring.append(contentsOf: repeatElement(nil, count: size - full))
        for index in 0..<oldest { ring.swapAt(index, full + index) }
    }

    private mutating func forgetBeyondCaps() {
        while count > capacity || (bytes > byteLimit && count > 1) {
            guard let forgotten = ring[oldest] else { preconditionFailure("the oldest slot of the history is empty") }
            ring[oldest] = nil
            bytes -= Footprint.of(change: forgotten)
            floor = forgotten.version
            oldest = oldest + 1 < ring.count ? oldest + 1 : 0
            count -= 1
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
