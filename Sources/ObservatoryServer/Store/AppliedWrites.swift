import Foundation

/// The writes with a `requestId` applied in the last `retention` milliseconds,
/// by id, oldest first, at most `capacity` of them.
///
/// A plain value kept in `StoreState`. Ids leave in the order they came, when
/// they are older than the retention or when the capacity is reached, so
/// remembering and forgetting are both O(1) per write.
struct AppliedWrites: Sendable {
    /// docs/protocol.md's ten minutes.
    static let defaultRetentionMilliseconds: Int64 = 10 * 60 * 1_000

    let capacity: Int
    let retentionMilliseconds: Int64
    private var byId: [String: AppliedWrite] = [:]
    private var order: [String] = []
    private var head = 0

    init(capacity: Int, retentionMilliseconds: Int64 = defaultRetentionMilliseconds) {
        self.capacity = max(1, capacity)
        self.retentionMilliseconds = retentionMilliseconds
    }

    /// The wall time in milliseconds since 1970: ids are kept across restarts, so
    /// their age is measured on the clock that survives one.
    static func wallMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    }

    /// The number of ids remembered.
    var count: Int { byId.count }

    /// The write applied under `requestId` within the retention, if any.
    func lookup(_ requestId: String, now: Int64) -> AppliedWrite? {
        guard let write = byId[requestId], now - write.appliedAt < retentionMilliseconds else { return nil }
        return write
    }

    /// Remembers `write`, forgetting what has expired by `now` or no longer fits.
    mutating func remember(_ write: AppliedWrite, now: Int64) {
        forgetExpired(now: now)
        while byId.count >= capacity, forgetOldest() {}
        if byId.updateValue(write, forKey: write.requestId) == nil {
            order.append(write.requestId)
        }
    }

    /// Every write remembered and not expired by `now`, oldest first (for snapshots).
    func all(now: Int64) -> [AppliedWrite] {
        order[head...].compactMap { lookup($0, now: now) }
    }

    private mutating func forgetExpired(now: Int64) {
        while head < order.count, let oldest = byId[order[head]], now - oldest.appliedAt >= retentionMilliseconds {
            _ = forgetOldest()
        }
    }

    private mutating func forgetOldest() -> Bool {
        guard head < order.count else { return false }
        byId[order[head]] = nil
        head += 1
        if head > 1_024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        return true
    }
}
