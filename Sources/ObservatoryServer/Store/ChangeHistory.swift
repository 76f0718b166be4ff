import ObservatoryWire

/// The most recent changes, in revision order, so that an `observe` with
/// `fromRevision` can replay what a client missed (PROTOCOL.md, "Resume").
///
/// A ring of at most `capacity` changes, each kept exactly as it was first sent
/// (the `StoreChange` with its encoded frame). `floor` is the revision below which
/// changes are no longer held: every change after `floor` up to `newest` is here,
/// none missing, so a resume from any revision in `floor...newest` is exact.
///
/// A plain value; `SharedStore` keeps it behind its lock and appends every change
/// it makes, in the same step as the change.
struct ChangeHistory: Sendable {
    /// The most changes held; older ones are forgotten first.
    let capacity: Int
    private var ring: [StoreChange?]
    /// Where the oldest held change sits in `ring`.
    private var start = 0
    /// The number of changes held.
    private(set) var count = 0
    /// Changes after this revision are all held.
    private(set) var floor: Int64
    /// The revision of the newest change, or `floor` when none is held.
    private(set) var newest: Int64

    /// An empty history that starts after `revision`: a resume from an older
    /// revision cannot be served, since those changes were never held.
    init(capacity: Int, after revision: Int64) {
        self.capacity = max(1, capacity)
        ring = []
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

    /// Adds the next change. A change that does not follow `newest` (which the
    /// store never makes) starts the history over after it, so no gap is ever
    /// passed off as complete.
    mutating func append(_ change: StoreChange) {
        guard change.version == newest + 1 else {
            self = ChangeHistory(capacity: capacity, after: change.version - 1)
            return append(change)
        }
        newest = change.version
        if ring.count < capacity {
            ring.append(change)
            count += 1
            return
        }
        // Full: the oldest change makes room, and the floor moves up to it.
        let oldest = ring[start]
        floor = oldest?.version ?? floor
        ring[start] = change
        start = (start + 1) % capacity
    }

    /// The changes of `target` after `revision`, oldest first, or `nil` when some
    /// change after `revision` is no longer held (or `revision` is in the future).
    func changes(of target: Target, after revision: Int64) -> [StoreChange]? {
        guard revision >= floor, revision <= newest else { return nil }
        // The first change after `revision`, by binary search: versions grow along
        // the ring, though not always by one (`skip(through:)`).
        var (low, high) = (0, count)
        while low < high {
            let middle = (low + high) / 2
            if (ring[(start + middle) % ring.count]?.version ?? floor) <= revision {
                low = middle + 1
            } else {
                high = middle
            }
        }
        var result: [StoreChange] = []
        for offset in low..<count {
            guard let change = ring[(start + offset) % ring.count] else { continue }
            if Self.matches(change.key, target) { result.append(change) }
        }
        return result
    }

    /// Every change held, oldest first (for snapshots).
    var all: [StoreChange] {
        (0..<count).compactMap { ring[(start + $0) % ring.count] }
    }

    private static func matches(_ key: String, _ target: Target) -> Bool {
        switch target {
        case .key(let observed): StoreKey(key) == StoreKey(observed)
        case .prefix(let prefix): StoreKey(key).hasBytePrefix(prefix)
        }
    }
}
