import Observatory

// The store's lock, and what must not run under it: observers' handlers and the
// revision gate's waiters.
extension SharedStore {
    /// Runs `body` under the store's lock; once the lock is released, sends the
    /// deliveries `body` queued if that made this thread the sender (and those
    /// other threads queue meanwhile, until none is left: `DeliveryQueue`), then
    /// runs the revision gate's waiters that storage woke meanwhile
    /// (`Guarded.wakeup`). So no handler and no connection's wake-up ever runs
    /// while the store is locked.
    ///
    /// Every path that may write or publish (and so queue deliveries or wake
    /// waiters) takes the lock this way.
    func withStoreLock<Result, Failure: Error>(
        _ body: (inout Guarded) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        var wakeup = RevisionGate.Wakeup()
        var deliveries: [Delivery] = []
        defer {
            if !deliveries.isEmpty { send(deliveries) }
            wakeup.run()
        }
        return try guarded.withLock { guarded throws(Failure) -> Result in
            defer {
                swap(&wakeup, &guarded.wakeup)
                if guarded.becameSender {
                    guarded.becameSender = false
                    guarded.deliveries.take(into: &deliveries)
                }
            }
            return try body(&guarded)
        }
    }

    /// The sender's turn: sends `batch`, then whatever was queued meanwhile, in
    /// order, holding no lock while handlers run, until nothing is left.
    private func send(_ batch: consuming [Delivery]) {
        var batch = batch
        while !batch.isEmpty {
            for delivery in batch {
                delivery.keyFeed?.send(delivery.change, from: delivery.author)
                if delivery.toEveryChange { everyChange.send(delivery.change, from: delivery.author) }
            }
            // Released here, off the lock: the last reference to a change or a feed may go with it.
            batch.removeAll(keepingCapacity: true)
            guarded.withLock { $0.deliveries.take(into: &batch) }
        }
    }
}
