import ObservatoryWire

// Answers the shared state gives later: their slots in the queue, and what a
// slot becomes once its answer is in.
extension OutboundQueue {
    /// Queues the slot of a write's reply that is given later (reply slot `slot`).
    mutating func appendPendingWrite(slot: Int, id: RequestID?) {
        guard !isFailed else { return }
        items.append(.pendingWrite(slot: slot, id: id))
        pendingBytes += Item.pendingWriteByteCount
    }

    /// Queues the slot of a resuming `observe`'s reply and replay that are given
    /// later: events queued behind it, live ones included, wait until they are out.
    mutating func appendPendingObservation(_ observation: PendingObservation) {
        guard !isFailed else { return }
        items.append(.pendingObservation(observation))
        pendingBytes += Item.pendingWriteByteCount
    }

    /// The answer to reply slot `slot` is in: the slot becomes the reply it stood
    /// for (a write's, which then waits for the revision gate like any other), or
    /// a resume's reply followed by its replay. Returns `false`, changing nothing,
    /// when no slot of that number waits (answered already: only the first answer
    /// counts; or dropped with everything else after a slow-consumer failure).
    mutating func fill(_ slot: Int, with answer: ReplySlot.Answer) -> Bool {
        for position in head..<items.count {
            switch items[position] {
            case .pendingWrite(slot, let id)?:
                let resolved = Item.resolved(answer, id: id)
                pendingBytes += resolved.byteCount - Item.pendingWriteByteCount
                items[position] = resolved
                return true
            case .pendingObservation(let observation)? where observation.slot == slot:
                expand(observation, with: answer, at: position)
                return true
            default:
                continue
            }
        }
        return false
    }

    /// Puts the reply and the replayed events of `observation`'s `answer` in its
    /// place at `position`, in that order, ahead of everything queued behind it.
    ///
    /// The replay counts beyond `maxQueuedBytes` as `appendReplayed` says, and is
    /// not merged into events queued elsewhere: they stay in revision order.
    private mutating func expand(_ observation: PendingObservation, with answer: ReplySlot.Answer, at position: Int) {
        let (reply, events) = observation.answered(answer)
        items[position] = .frame(reply)
        let replayed = events.map { event -> Item? in
            replayAllowance += event.change.frameByteCount
            pendingBytes += event.change.frameByteCount
            return event.mayCoalesce ? .change(event.change) : .strictChange(event.change)
        }
        pendingBytes += reply.count - Item.pendingWriteByteCount
        eventCount &+= replayed.count
        items.insert(contentsOf: replayed, at: position + 1)
        if let index = coalescingIndex {
            coalescingIndex = index.mapValues { $0 > position ? $0 + replayed.count : $0 }
        }
    }
}
