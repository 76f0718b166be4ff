/// Deadlines in order: a binary min-heap of (deadline, payload), so an event
/// loop finds its next wake-up in O(1) and adds or takes one in O(log n).
///
/// A plain value, generic so that its order is unit-tested with plain values.
/// Entries that are no longer wanted are not removed: their owner ignores them
/// when they come due, which keeps rescheduling O(log n) without a lookup.
struct TimerHeap<Payload> {
    private struct Entry {
        let deadline: UInt64
        /// Breaks ties in insertion order, so equal deadlines fire first-in first-out.
        let sequence: UInt64
        let payload: Payload

        func precedes(_ other: Entry) -> Bool {
            (deadline, sequence) < (other.deadline, other.sequence)
        }
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    /// The earliest deadline, if any entry is scheduled.
    var nextDeadline: UInt64? {
        entries.first?.deadline
    }

    /// The number of scheduled entries.
    var count: Int {
        entries.count
    }

    /// Schedules `payload` for `deadline` (monotonic nanoseconds).
    mutating func schedule(_ payload: Payload, at deadline: UInt64) {
        entries.append(Entry(deadline: deadline, sequence: nextSequence, payload: payload))
        nextSequence &+= 1
        siftUp(entries.count - 1)
    }

    /// Removes and returns the payloads whose deadline is at or before `now`,
    /// earliest first: all of them, or the first `limit`.
    mutating func takeDue(at now: UInt64, limit: Int = .max) -> [Payload] {
        var due: [Payload] = []
        while due.count < limit, let first = entries.first, first.deadline <= now {
            due.append(first.payload)
            let last = entries.removeLast()
            if !entries.isEmpty {
                entries[0] = last
                siftDown(0)
            }
        }
        return due
    }

    /// Drops every entry.
    mutating func removeAll() {
        entries.removeAll()
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            let right = left + 1
            let child = right < entries.count && entries[right].precedes(entries[left]) ? right : left
            guard entries[child].precedes(entries[parent]) else { return }
            entries.swapAt(child, parent)
            parent = child
        }
    }
}
