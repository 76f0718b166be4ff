/// The rule of expiring keys, as a plain value: which keys expire when, and
/// which are due at a given time (docs/protocol.md, "Expiring keys").
///
/// Time goes in (milliseconds since 1970 by the server's clock), keys come out:
/// `takeDue(now:limit:)` hands out at most `limit` keys whose deadline is at or
/// before `now`, earliest first, so that thousands of keys expiring in the same
/// second are expired in bounded slices, one per loop turn, and no turn stalls.
/// The deadlines sit in a min-heap; a key scheduled again or cancelled leaves
/// its old heap entry behind, which is skipped when it comes up and dropped when
/// stale entries outnumber live ones.
struct ExpiryMachine {
    /// One scheduled deadline of a key; stale when the key's deadline is another.
    private struct Scheduled {
        let key: StoreKey
        let deadline: Int64
    }

    /// What the bookkeeping of one expiring key costs besides its key's bytes
    /// (counted in the store's bytes): its slot in `deadlines` and a heap entry.
    static let bytesPerKey = 64

    private var deadlines: [StoreKey: Int64] = [:]
    private var heap = TimerHeap<Scheduled>()

    /// The number of expiring keys.
    var count: Int { deadlines.count }

    /// The entries of the heap, stale ones included (at most about twice `count`).
    var heapEntryCount: Int { heap.count }

    /// The deadline of `key`, if it expires.
    func deadline(of key: String) -> Int64? {
        deadlines[StoreKey(key)]
    }

    /// The earliest deadline that may be due, if any key expires: when to look again.
    /// Never later than the earliest live deadline (a stale one may come first).
    var nextDeadline: Int64? {
        heap.nextDeadline.map { Int64(clamping: $0) }
    }

    /// Makes `key` expire at `deadline`, in place of any earlier schedule.
    mutating func schedule(_ key: String, at deadline: Int64) {
        let storeKey = StoreKey(key)
        deadlines[storeKey] = deadline
        heap.schedule(Scheduled(key: storeKey, deadline: deadline), at: UInt64(clamping: deadline))
        dropStaleEntriesIfMany()
    }

    /// Makes `key` lasting: it no longer expires.
    mutating func cancel(_ key: String) {
        guard deadlines.removeValue(forKey: StoreKey(key)) != nil else { return }
        dropStaleEntriesIfMany()
    }

    /// Takes out at most `limit` keys whose deadline is at or before `now`,
    /// earliest first; they are no longer scheduled.
    mutating func takeDue(now: Int64, limit: Int) -> [String] {
        var due: [String] = []
        while due.count < limit {
            guard
                let next = heap.takeDue(at: UInt64(clamping: max(now, 0)), limit: 1).first
            else { break }
            guard deadlines[next.key] == next.deadline else { continue }
            deadlines[next.key] = nil
            due.append(next.key.text)
        }
        return due
    }

    /// Rebuilds the heap from the live deadlines when stale entries make up
    /// most of it: a key whose clock is restarted many times costs one entry.
    private mutating func dropStaleEntriesIfMany() {
        guard heap.count > 64, heap.count > 2 * deadlines.count else { return }
        var rebuilt = TimerHeap<Scheduled>()
        for (key, deadline) in deadlines {
            rebuilt.schedule(Scheduled(key: key, deadline: deadline), at: UInt64(clamping: deadline))
        }
        heap = rebuilt
    }
}
