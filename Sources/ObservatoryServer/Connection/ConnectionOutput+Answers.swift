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
    ///
    /// A session that has never observed anything gets no events (its
    /// `mayReceiveEvents` is false): nothing is held for it, and while the bytes
    /// its last answers left are within its limit (`queuedBytesBound`), answering
    /// starts without the lock that reads them. Its first `observe` holds the
    /// events from then on; they are released as for any session.
    func answerFrames(
        of session: Session, within share: ConnectionMachine.TurnShare, startedAt start: UInt64 = EventLoop.now()
    ) -> (action: Session.Action, usedShare: Bool) {
        guard !session.isClosing else { return (.close, false) }
        var queuedBytes: Int
        // Whether events are held (and released once answering stops).
        var isHoldingEvents: Bool
        if !session.mayReceiveEvents, session.queuedBytesBound <= session.maxQueuedBytes {
            queuedBytes = session.queuedBytesBound
            isHoldingEvents = false
        } else {
            queuedBytes = withQueue { queue in
                queue.holdEvents()
                return queue.queuedBytes
            }
            isHoldingEvents = true
        }
        defer { if isHoldingEvents { releaseEvents() } }
        // The last answer was to the last frame held: no input is left.
        var answeredLastFrame = false
        var answered = 0
        while true {
            // Reading the input count again costs a copy: skipped once the last frame is answered.
            if answered > 0, !answeredLastFrame, session.unfinishedInputByteCount > 0,
                answered >= share.requests || EventLoop.now() &- start >= share.nanoseconds
            {
                return (.keepOpen, true)
            }
            switch session.nextAnswer(queuedBytes: queuedBytes) {
            case .answered(let queued, let releasedEvents):
                answered += 1
                queuedBytes = queued
                answeredLastFrame = releasedEvents
                // Released with the answer to the last frame held; held by a first `observe`.
                isHoldingEvents = !releasedEvents && (isHoldingEvents || session.mayReceiveEvents)
            case .backlogged:
                return (.backlogged, false)
            case .finished:
                return (session.isClosing ? .close : .keepOpen, false)
            }
        }
    }
}
