/// Waits for a given number of replies and ignores everything else: the setup of a
/// scenario (every observer's `observe` answered) and the idle-connection count
/// (every connection's `ping` answered).
struct ReplyWait: Workload {
    private var remaining: Int
    /// Replies that reported a failure.
    private(set) var failures = 0

    init(replies: Int) {
        remaining = replies
    }

    mutating func received(_ frame: WireDialect.Frame, on index: Int, at now: UInt64, driver: LoadDriver) {
        guard case .reply(let ok) = frame else { return }
        remaining -= 1
        if !ok { failures += 1 }
    }

    func advance(at now: UInt64, driver: LoadDriver) -> Bool {
        remaining <= 0
    }
}
