import ObservatoryWire

// Waiting for the shared state: replies to writes and events go out only as far
// as its acknowledgements allow, and a flush stopped by one resumes when it moves.
extension Connection {
    /// How far the shared state lets replies to writes and events go now.
    func storageAcknowledgement() -> OutboundQueue.Acknowledgement {
        let revision = acknowledged.value
        // Everything is acknowledged without storage: no closure to build per flush.
        guard revision != .max else { return .everything }
        let acknowledgements = self.acknowledgements
        return OutboundQueue.Acknowledgement(revision: revision) { revision, id in
            guard acknowledgements.isLost(revision) else { return nil }
            return Reply.failure(id: id, acknowledgements.lostChangeError()).encodedLine()
        }
    }

    /// Flushes again once the write reply at the head of the queue is known.
    func waitForReply(_ pending: PendingReply) {
        if let awaited = awaitedReply, awaited === pending { return }
        awaitedReply = pending
        pending.whenFulfilled { [weak self] in
            guard let self else { return }
            loop.execute {
                if self.awaitedReply === pending { self.awaitedReply = nil }
                self.flush()
            }
        }
    }

    /// Flushes again once `revision` is acknowledged (or given up on).
    func waitForStorage(_ revision: Int64) {
        if let awaited = awaitedRevision, awaited <= revision { return }
        awaitedRevision = revision
        acknowledgements.whenAcknowledged(revision) { [weak self] in
            guard let self else { return }
            loop.execute {
                self.awaitedRevision = nil
                self.flush()
            }
        }
    }
}
