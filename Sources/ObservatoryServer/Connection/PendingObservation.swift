import ObservatoryWire

/// The slot in a connection's `OutboundQueue` of a resuming `observe` whose
/// reply and replay the shared state gives later (into `ReplySlot` `slot`).
///
/// It holds the connection's observations as they were when the observation
/// started, to filter the replay by as live events of `route` were filtered
/// then (the session answers no other frame meanwhile, so they cannot change
/// before the answer). A class, so that the queue's items stay small.
final class PendingObservation {
    /// The number of the reply slot its answer comes into.
    let slot: Int
    /// The client's resume point: every event after it is still to be sent.
    let resumeRevision: Int64
    /// The `observe` request's id.
    let id: RequestID?
    /// The route the observed target's live events arrive on.
    let route: ObservationSet.Route
    /// The connection's observations when the observation started.
    let observations: ObservationSet

    /// The slot of the answer to request `id`, a resume after `resumeRevision`,
    /// whose replay is filtered by `observations` for `route`.
    init(
        slot: Int, resumeRevision: Int64, id: RequestID?, route: ObservationSet.Route, observations: ObservationSet
    ) {
        self.slot = slot
        self.resumeRevision = resumeRevision
        self.id = id
        self.route = route
        self.observations = observations
    }

    /// The reply's frame for `answer` and the replayed events to queue right
    /// behind it, each with whether it may be coalesced.
    func answered(_ answer: ReplySlot.Answer) -> (reply: [UInt8], events: [(change: StoreChange, mayCoalesce: Bool)]) {
        switch answer {
        case .snapshot(let values, let revision):
            return (
                RawReply.success(id: id, .observe(values: values, revision: revision, resumed: false)).encodedLine(), []
            )
        case .reply(.success(let payload)):
            return (Reply.success(id: id, payload).encodedLine(), [])
        case .reply(.failure(let error)):
            return (Reply.failure(id: id, error).encodedLine(), [])
        case .replay(let changes, let revision):
            let reply = RawReply.success(id: id, .observe(values: [], revision: revision, resumed: true)).encodedLine()
            let events = changes.compactMap { change -> (change: StoreChange, mayCoalesce: Bool)? in
                guard observations.accepts(change.key, via: route) else { return nil }
                return (change, observations.mayCoalesce(change.key))
            }
            return (reply, events)
        }
    }
}
