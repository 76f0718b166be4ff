import ObservatoryWire

/// A session's reply slots (`ReplySlot`), as a plain value: it numbers them, and
/// remembers the one whose answer the session awaits, with what to count once
/// the answer is in.
///
/// The session answers no further frame while it awaits an answer, so at most
/// one slot is open at a time. A slot's number is used once: the next slot gets
/// the next number, so a late second answer to an earlier slot (a timeout that
/// lost its race) matches nothing and is ignored.
struct ReplySlots {
    /// What an answer given later counts in the metrics.
    enum Counting: Equatable {
        /// A write's change.
        case change
        /// The changes of a batch of `operations`.
        case batch([BatchOperation<EncodedJSON>])
        /// A resume: replayed or reset.
        case resume

        /// Counts what `answer` made in `metrics`.
        func count(_ answer: ReplySlot.Answer, in metrics: ServerMetrics) {
            switch (self, answer) {
            case (.change, .reply(.success(let payload))): metrics.countChange(payload)
            case (.batch(let operations), .reply(.success(.batch(_, let results, false)))):
                metrics.countChanges(of: operations, results)
            case (.resume, .replay): metrics.resumesReplayed.add()
            case (.resume, _): metrics.resumesReset.add()
            case (.change, _), (.batch, _): break
            }
        }
    }

    /// The number the next request's slot gets, should the state answer it later.
    private(set) var next = 0
    /// The slot whose answer is awaited, and what to count then.
    private(set) var awaited: (slot: Int, counting: Counting)?

    /// Whether an answer is awaited: the session answers no frame until it is in.
    var isAwaiting: Bool { awaited != nil }

    /// The state answers slot `slot` later: await it; the next slot gets the next number.
    mutating func await(_ slot: Int, counting: Counting) {
        awaited = (slot, counting)
        next = slot &+ 1
    }

    /// The answer to slot `slot` is in: returns what to count, and awaits nothing
    /// more; `nil`, changing nothing, when that slot is not the one awaited.
    mutating func receive(_ slot: Int) -> Counting? {
        guard let awaited, awaited.slot == slot else { return nil }
        self.awaited = nil
        return awaited.counting
    }
}
