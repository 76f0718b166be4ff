import ObservatoryWire

// Answers the shared state gives later: their places in the queue, and what a
// resuming `observe`'s place becomes once it is answered.
extension OutboundQueue {
    /// Queues the place of a write's reply that is given later.
    mutating func appendPendingWrite(_ pending: PendingReply, id: RequestID?) {
        guard !isFailed else { return }
        items.append(.pendingWrite(pending, id: id))
        pendingBytes += Item.pendingWriteByteCount
    }

    /// Queues the place of a resuming `observe`'s reply and replay that are given
    /// later: events queued behind it, live ones included, wait until they are out.
    mutating func appendPendingObservation(_ observation: PendingObservation) {
        guard !isFailed else { return }
        items.append(.pendingObservation(observation))
        pendingBytes += Item.pendingWriteByteCount
    }

    /// Puts the reply and the replayed events of `observation` in its place at
    /// `position`, in that order, ahead of everything queued behind it; `false`
    /// while its answer is not known.
    ///
    /// The replay counts beyond `maxQueuedBytes` as `appendReplayed` says, and is
    /// not merged into events queued elsewhere: they stay in revision order.
    mutating func expand(_ observation: PendingObservation, at position: Int) -> Bool {
        guard let answer = observation.answer() else { return false }
        items[position] = .frame(answer.reply)
        let replayed = answer.events.map { event -> Item? in
            replayAllowance += event.change.frameByteCount
            pendingBytes += event.change.frameByteCount
            return event.mayCoalesce ? .change(event.change) : .strictChange(event.change)
        }
        pendingBytes += answer.reply.count - Item.pendingWriteByteCount
        eventCount &+= replayed.count
        items.insert(contentsOf: replayed, at: position + 1)
        if let index = coalescingIndex {
            coalescingIndex = index.mapValues { $0 > position ? $0 + replayed.count : $0 }
        }
        return true
    }
}
