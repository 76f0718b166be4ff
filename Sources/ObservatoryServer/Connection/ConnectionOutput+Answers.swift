extension ConnectionOutput {
    /// Carries out `session`'s answers to every frame it holds (no share limit).
    func answerFrames(of session: Session) -> Session.Action {
        answerFrames(of: session, within: .unlimited).action
    }

    /// Carries out `session`'s answers to the frames it holds: queues each reply
    /// (and a resumed `observe`'s replay right behind it) until no frame is left,
    /// the output holds too much, or the answers used up `share`
    /// (`usedShare`; frames may be left for the next turn). Events wait
    /// meanwhile, and go out after the replies (or ahead of a `ping`'s reply,
    /// which vouches for them). The caller flushes.
    func answerFrames(
        of session: Session, within share: ConnectionMachine.TurnShare
    ) -> (action: Session.Action, usedShare: Bool) {
        guard !session.isClosing else { return (.close, false) }
        holdEvents()
        defer { releaseEvents() }
        var answered = 0
        let start = EventLoop.now()
        while true {
            if answered > 0 && (answered >= share.requests || EventLoop.now() &- start >= share.nanoseconds) {
                return (.keepOpen, true)
            }
            switch session.nextAnswer(queuedBytes: withQueue { $0.queuedBytes }) {
            case .answer(let answer):
                answered += 1
                if answer.releasesEventsFirst {
                    releaseEvents()
                    holdEvents()
                }
                switch answer.content {
                case .reply(let reply): append(reply)
                case .valueReply(let reply): append(reply)
                case .pendingWrite(let pending, let id): appendPendingWrite(pending, id: id)
                case .pendingObservation(let replay, let id, let route):
                    appendPendingObservation(replay, id: id, route: route)
                }
                if let replay = answer.replay {
                    self.replay(replay.changes, via: replay.route)
                }
            case .backlogged:
                return (.backlogged, false)
            case .finished:
                return (session.isClosing ? .close : .keepOpen, false)
            }
        }
    }
}
