extension ConnectionOutput {
    /// Carries out `session`'s answers to every frame it holds (no share limit).
    func answerFrames(of session: Session) -> Session.Action {
        answerFrames(of: session, within: .unlimited).action
    }

    /// Has `session` answer the frames it holds, each answer queued here by the
    /// session (a resumed `observe`'s replay right behind it) until no frame is left,
    /// the output holds too much, or the answers used up `share`
    /// (`usedShare`; frames may be left for the next turn). Events wait
    /// meanwhile, and go out after the replies (or ahead of a `ping`'s reply,
    /// which vouches for them). The caller flushes.
    ///
    /// The share counts from `start` (monotonic nanoseconds), and is used only
    /// while the session still holds input: an answer to the last frame held
    /// leaves nothing for another share. One lock a reply: it queues the reply
    /// and reads the queued bytes the next answer is measured against; the reply
    /// to the last frame held lets the events held go in the same lock
    /// (callgrind: a lock of its own cost about 90 instructions a read).
    func answerFrames(
        of session: Session, within share: ConnectionMachine.TurnShare, startedAt start: UInt64 = EventLoop.now()
    ) -> (action: Session.Action, usedShare: Bool) {
        guard !session.isClosing else { return (.close, false) }
        var queuedBytes = withQueue { queue in
            queue.holdEvents()
            return queue.queuedBytes
        }
        // Released with the answer to the last frame held, else once answering stops.
        var isHoldingEvents = true
        defer { if isHoldingEvents { releaseEvents() } }
        var answered = 0
        while true {
            // Events released: the last answer left no input (and reading it again costs a copy).
            if answered > 0, isHoldingEvents, session.unfinishedInputByteCount > 0,
                answered >= share.requests || EventLoop.now() &- start >= share.nanoseconds
            {
                return (.keepOpen, true)
            }
            switch session.nextAnswer(queuedBytes: queuedBytes) {
            case .answered(let queued, let releasedEvents):
                answered += 1
                queuedBytes = queued
                if releasedEvents { isHoldingEvents = false }
            case .backlogged:
                return (.backlogged, false)
            case .finished:
                return (session.isClosing ? .close : .keepOpen, false)
            }
        }
    }
}
