import ObservatoryWire

// The revision gate inside the write buffer: a write's reply that storage has not
// acknowledged yet is written into the buffer all the same, and the bytes from its
// start on are not sent until it is.
extension OutboundQueue {
    /// A write's reply in the write buffer, at `start..<end`, that waits for storage
    /// to acknowledge `revision`.
    ///
    /// Everything written behind it (events, other replies) waits too, so order
    /// holds. Its own line in the buffer, without an array of its own or an item to
    /// keep, take out and release, is what makes a durable reply cost about what a
    /// plain one does (callgrind, `--fsync everysec`: about 700 instructions a `set`).
    struct GatedReply {
        /// The revision of the write's change.
        let revision: Int64
        /// Where its line starts in the write buffer.
        var start: Int
        /// Where its line ends in the write buffer (after its LF).
        var end: Int
        /// The request's id, for the error that replaces the line if the write is lost.
        let id: RequestID?
    }

    /// The unsent bytes ahead of the first gated reply still waiting, after
    /// opening the gates `acknowledgement` lets through, in order; a reply whose
    /// write was lost becomes its error, in its place. Sets `waitingForRevision`
    /// to the revision a gate still waits for, if one does.
    ///
    /// Out of line: `nextBytes(acknowledging:)` stays small for the plain path.
    @inline(never)
    mutating func bytesBeforeGate(_ acknowledgement: Acknowledgement) -> ArraySlice<UInt8> {
        var opened = 0
        while opened < gatedReplies.count {
            let gate = gatedReplies[opened]
            if gate.revision > acknowledgement.revision {
                guard let failure = acknowledgement.failureForLostWrite(gate.revision, gate.id) else { break }
                replaceGatedLine(at: opened, with: failure)
            }
            opened += 1
        }
        if opened == gatedReplies.count {
            // Popped one by one, keeping the capacity: `removeAll(keepingCapacity:)`
            // went through the generic `replaceSubrange` (callgrind: about 150
            // instructions a `set` under `everysec`).
            while gatedReplies.popLast() != nil {}
        } else if opened > 0 {
            gatedReplies.removeFirst(opened)
        }
        guard let waiting = gatedReplies.first else {
            waitingForRevision = nil
            return writeBuffer[writeOffset...]
        }
        waitingForRevision = waiting.revision
        return writeBuffer[writeOffset..<waiting.start]
    }

    /// Replaces the line of the gated reply at `index` by `failure` (a line too:
    /// gated replies are written only while frames are lines) and moves the gates
    /// behind it to where their lines now are.
    private mutating func replaceGatedLine(at index: Int, with failure: [UInt8]) {
        let gate = gatedReplies[index]
        writeBuffer.replaceSubrange(gate.start..<gate.end, with: failure)
        gatedReplies[index].end = gate.start + failure.count
        moveGates(by: failure.count - (gate.end - gate.start), from: index + 1)
    }

    /// Moves the gates from `index` on by `distance` bytes, after bytes were
    /// inserted into or removed from the write buffer ahead of their lines.
    mutating func moveGates(by distance: Int, from index: Int) {
        guard distance != 0 else { return }
        for later in index..<gatedReplies.count {
            gatedReplies[later].start += distance
            gatedReplies[later].end += distance
        }
    }
}
