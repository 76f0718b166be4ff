import Observatory

// The store's lock, and the revision gate's waiters that must not run under it.
extension SharedStore {
    /// Runs `body` under the store's lock, then, once the lock is released, runs
    /// the revision gate's waiters that storage woke meanwhile (`Guarded.wakeup`):
    /// a connection's wake-up never runs while the store is locked.
    ///
    /// Every path that may write (and so wake waiters) takes the lock this way.
    func withStoreLock<Result, Failure: Error>(
        _ body: (inout Guarded) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var wakeup = RevisionGate.Wakeup()
        defer { wakeup.run() }
        return try guarded.withLock { guarded throws(Failure) -> Result in
            defer { swap(&wakeup, &guarded.wakeup) }
            return try body(&guarded)
        }
    }
}
