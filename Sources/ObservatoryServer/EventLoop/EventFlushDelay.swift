/// Whether the loop writes, at the end of a turn, the output of connections
/// that were not answered in it (observers' events, the rest of a pipelining
/// client's replies), or lets it wait a little.
///
/// While a handler still works through its shares (a writer pipelining changes
/// that a thousand observers see), writing every observer at the end of every
/// turn costs one `send` per observer per few changes: most of a delivery's
/// cost is then the kernel's, per `send`. Letting that output wait makes each
/// `send` carry the events of many changes, as Redis's do (it writes after
/// answering all it read).
///
/// The output waits at most `shares` shares resumed since the last write, or
/// `limit` nanoseconds of the loop thread's own CPU time, whichever comes
/// first. Both measure the loop's work, not the wall clock: a share is itself
/// bounded (`ConnectionMachine.TurnShare`), and on a busy machine, where the
/// loop gets a fraction of a core, a wall-clock bound ended every batch after
/// a few changes (fan-out to 1,000 observers: 17 events a `send` against
/// Redis's 63, twice its CPU per delivery). The time bound is for requests
/// that are expensive one by one, where the shares alone would be long.
/// An answered connection's reply never waits (the loop writes those first and
/// always), and once no handler is left to resume, everything is written.
///
/// A plain value on the loop's thread.
struct EventFlushDelay {
    /// The most shares output waits behind.
    let shares: Int
    /// The most CPU time of the loop's thread output waits behind, in nanoseconds.
    let limit: UInt64
    /// The loop's CPU time when the waiting output started to wait; `nil` while none waits.
    private var waitingSince: UInt64?
    /// Shares resumed since the last write.
    private var sharesWaited = 0

    /// A delay that lets output wait behind at most `shares` shares and
    /// `limit` nanoseconds of the loop's CPU time.
    init(shares: Int, limit: UInt64) {
        self.shares = shares
        self.limit = limit
    }

    /// The end of a turn: whether to write the waiting output now, given whether
    /// handlers are left to resume, how many shares the turn resumed, and the
    /// loop's CPU time (read only when that matters).
    mutating func writesNow(handlersResuming: Bool, sharesResumed: Int, cpuTime: () -> UInt64) -> Bool {
        sharesWaited += sharesResumed
        guard handlersResuming, sharesWaited < shares else { return endWait() }
        let time = cpuTime()
        guard let since = waitingSince else {
            waitingSince = time
            return false
        }
        guard time &- since < limit else { return endWait() }
        return false
    }

    /// Writes: the next wait starts from nothing.
    private mutating func endWait() -> Bool {
        waitingSince = nil
        sharesWaited = 0
        return true
    }
}
