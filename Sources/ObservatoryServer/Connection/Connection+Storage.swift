import ObservatoryWire

// Waiting for the shared state: replies to writes and events go out only as far
// as its revision gate lets them, and a flush stopped there resumes when it moves.
extension Connection {
    /// How far the shared state's gate lets replies to writes and events go now.
    func storageAcknowledgement() -> OutboundQueue.Acknowledgement {
        let revision = gate.reached
        // Everything passes without storage: no closure to build per flush.
        guard revision != .max else { return .everything }
        let gate = self.gate
        return OutboundQueue.Acknowledgement(revision: revision) { revision, id in
            guard let error = gate.loss(of: revision) else { return nil }
            return Reply.failure(id: id, error).encodedLine()
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

    /// Flushes again once `revision` passed the gate (or was lost).
    func waitForStorage(_ revision: Int64) {
        if let awaited = awaitedRevision, awaited <= revision { return }
        awaitedRevision = revision
        gate.wait(for: revision) { [weak self] in
            guard let self else { return }
            loop.execute {
                self.awaitedRevision = nil
                self.flush()
            }
        }
    }
}
