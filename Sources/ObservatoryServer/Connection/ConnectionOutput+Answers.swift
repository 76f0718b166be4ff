extension ConnectionOutput {
    /// Carries out `session`'s answers to the frames it holds: queues each reply
    /// (and a resumed `observe`'s replay right behind it) until no frame is left or
    /// the output holds too much. Events wait meanwhile, and go out after the
    /// replies (or ahead of a `ping`'s reply, which vouches for them). The caller
    /// flushes.
    func answerFrames(of session: Session) -> Session.Action {
        guard !session.isClosing else { return .close }
        holdEvents()
        defer { releaseEvents() }
        while true {
            switch session.nextAnswer(queuedBytes: withQueue { $0.queuedBytes }) {
            case .answer(let answer):
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
                return .backlogged
            case .finished:
                return session.isClosing ? .close : .keepOpen
            }
        }
    }
}
