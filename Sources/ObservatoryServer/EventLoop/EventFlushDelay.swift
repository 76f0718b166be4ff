/// Whether the loop writes, at the end of a turn, the output of connections
/// that were not answered in it (observers' events, the rest of a pipelining
/// client's replies), or lets it wait a little.
///
/// While a handler still works through its shares (a writer pipelining changes
/// that a thousand observers see), writing every observer at the end of every
/// turn costs one write per observer per change: most of a delivery's cost is
/// then the kernel's, per write. Letting those writes wait up to `limit` makes
/// each carry the events of several changes. An answered connection's reply
/// never waits (the loop writes those first and always), and once no handler
/// is left to resume, everything is written.
///
/// A plain value on the loop's thread.
struct EventFlushDelay {
    /// How long output may wait, in monotonic nanoseconds.
    let limit: UInt64
    /// When the waiting output started to wait; `nil` while none waits.
    private var waitingSince: UInt64?

    /// A delay that lets output wait at most `limit` nanoseconds.
    init(limit: UInt64) {
        self.limit = limit
    }

    /// The end of a turn: whether to write the waiting output now, given whether
    /// handlers are left to resume, and the clock (read only when that matters).
    mutating func writesNow(handlersResuming: Bool, now: () -> UInt64) -> Bool {
        guard handlersResuming else {
            waitingSince = nil
            return true
        }
        let time = now()
        guard let since = waitingSince else {
            waitingSince = time
            return false
        }
        guard time &- since >= limit else { return false }
        waitingSince = nil
        return true
    }
}
