import ObservatoryWire

// Waiting for the shared state: replies to writes and events go out only as far
// as its revision gate lets them, and a flush stopped there resumes when it moves;
// an answer the state gives later comes in as an input on the loop and flushes.
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

    /// The answer the shared state gave later for reply slot `slot` (handed over
    /// by `ConnectionOutput.answer(_:into:)`); on the loop's thread. The session
    /// takes it, the queue fills the slot, and the flush sends it as far as the
    /// revision gate lets it.
    func receive(_ answer: ReplySlot.Answer, into slot: Int) {
        guard session.receive(answer, into: slot) else { return }
        flush()
    }

    /// Flushes again once `revision` passed the gate (or was lost).
    func waitForStorage(_ revision: Int64) {
        if let awaited = awaitedRevision, awaited <= revision { return }
        awaitedRevision = revision
        gate.wait(for: revision) { [output] in
            guard let connection = output.boundConnection else { return }
            connection.loop.execute {
                connection.awaitedRevision = nil
                connection.flush()
            }
        }
    }
}
