import ObservatoryWire

// Expiring keys (docs/protocol.md, "Expiring keys"): the store deletes them
// when the server's expiry timer asks, a bounded slice at a time.
extension SharedStore {
    /// Deletes the expiring keys due at `now` (milliseconds since 1970), at most
    /// `limit` of them, earliest first, each announced as a delete by the author
    /// of the write that set its expiry, with reason `expired`.
    ///
    /// The slice's records go to storage in one write before any of it is
    /// applied; when storage refuses them, nothing is deleted and the keys stay
    /// scheduled.
    ///
    /// - Returns: how many keys were deleted, and the storage failure, if any.
    @discardableResult
    func expireDue(now: Int64 = KeyExpiry.wallMilliseconds(), limit: Int = 1_000) -> (
        expired: Int, failure: WireError?
    ) {
        withStoreLock { guarded in
            guard let next = guarded.data.nextExpiry, next <= now else { return (0, nil) }
            writeUnwritten(&guarded)
            let planned = guarded.data.planExpiry(now: now, limit: limit)
            guard !planned.isEmpty else { return (0, nil) }
            if let storage {
                do throws(StorageError) {
                    guarded.wakeup += try storage.append(planned.flatMap(\.records))
                } catch {
                    for write in planned {
                        if let key = write.change?.key { guarded.data.reschedule(key) }
                    }
                    return (0, Self.notMade(error))
                }
            }
            for write in planned {
                let (change, _) = guarded.data.apply(write)
                if let change {
                    publish(change, from: Author(name: change.author, session: change.session), in: &guarded)
                }
            }
            return (planned.count, nil)
        }
    }

    /// The earliest time (milliseconds since 1970) an expiring key may be due, if any key expires.
    var nextExpiry: Int64? {
        guarded.withLock { $0.data.nextExpiry }
    }
}
