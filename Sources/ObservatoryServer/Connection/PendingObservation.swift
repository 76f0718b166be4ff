import ObservatoryWire

/// The place in a connection's `OutboundQueue` of a resuming `observe` whose
/// reply and replay the shared state gives later (`PendingReplay`).
///
/// It holds the connection's observations as they were when the observation
/// started, to filter the replay by as live events of `route` were filtered
/// then (the session answers no other frame meanwhile, so they cannot change
/// before the answer). A class, so that the queue's items stay small.
final class PendingObservation {
    /// The answer to wait for.
    let replay: PendingReplay
    /// The `observe` request's id.
    let id: RequestID?
    /// The route the observed target's live events arrive on.
    let route: ObservationSet.Route
    /// The connection's observations when the observation started.
    let observations: ObservationSet

    /// The place of `replay`'s answer to request `id`, filtered by `observations` for `route`.
    init(_ replay: PendingReplay, id: RequestID?, route: ObservationSet.Route, observations: ObservationSet) {
        self.replay = replay
        self.id = id
        self.route = route
        self.observations = observations
    }

    /// The reply's frame and the replayed events to queue right behind it, each
    /// with whether it may be coalesced; `nil` until the answer is known.
    func answer() -> (reply: [UInt8], events: [(change: StoreChange, mayCoalesce: Bool)])? {
        guard let result = replay.reply.result else { return nil }
        let reply: [UInt8]
        switch result {
        case .success(.observe(_, let revision, let resumed)):
            // The snapshot's values are kept as bytes by the replay, not in the payload.
            reply = RawReply.success(
                id: id, .observe(values: replay.values, revision: revision, resumed: resumed)
            ).encodedLine()
        case .success(let payload): reply = Reply.success(id: id, payload).encodedLine()
        case .failure(let error): reply = Reply.failure(id: id, error).encodedLine()
        }
        let events = replay.changes.compactMap { change -> (change: StoreChange, mayCoalesce: Bool)? in
            guard observations.accepts(change.key, via: route) else { return nil }
            return (change, observations.mayCoalesce(change.key))
        }
        return (reply, events)
    }
}
