import ObservatoryWire

// Observing: the targets join the output's observation set with their snapshot
// or replay, and leave it; the first `observe` makes events wait while frames are answered.
extension Session {
    /// Observes `target` with its slow policy, or resumes it after `resumePoint`.
    /// The target joins the observation set under the store's lock, in the step
    /// that takes the snapshot or the replay, so no change reaches this session
    /// twice or not at all.
    func observe(_ target: Target, from resumePoint: ResumePoint?, slow: SlowPolicy, id: RequestID?)
        throws(WireError) -> RawReply
    {
        let route: ObservationSet.Route =
            switch target {
            case .key: .key
            case .prefix: .prefix
            }
        let output = self.output
        if !mayReceiveEvents {
            // From now on events may come: held until the frames being answered are.
            mayReceiveEvents = true
            output.holdEvents()
        }
        let observation = try state.observe(target, from: resumePoint, by: self, answering: replySlot) {
            (ignoringThrough: Int64) throws(WireError) in
            let isNew = try output.updateObservations { observations throws(WireError) in
                try observations.add(target, slow: slow, ignoringThrough: ignoringThrough)
            }
            guard route == .prefix else { return isNew }
            defer { observesPrefixes = true }
            return !observesPrefixes
        } receive: { change in
            output.deliver(change, via: route)
        }
        let (values, revision) = (observation.values, observation.revision)
        guard let resumePoint else { return .success(id: id, .observe(values: values, revision: revision)) }
        if let slot = observation.pending {
            answer.pending = (slot.number, resumePoint.revision, route)
            // Not sent: the answer given later into the slot takes its place.
            return .success(id: id, .observe(values: [], revision: revision))
        }
        guard let changes = observation.replay else {
            environment.metrics.resumesReset.add()
            return .success(id: id, .observe(values: values, revision: revision, resumed: false))
        }
        environment.metrics.resumesReplayed.add()
        answer.replay = Replay(changes: changes, route: route)
        return .success(id: id, .observe(values: [], revision: revision, resumed: true))
    }

    func unobserve(_ target: Target) {
        let wasObserved = output.updateObservations { $0.remove(target) }
        guard wasObserved else { return }
        switch target {
        case .key(let key):
            state.stopObserving(key: key, by: self)
        case .prefix:
            guard output.observations.prefixes.isEmpty else { return }
            state.stopObservingPrefixes(by: self)
            observesPrefixes = false
        }
    }

    /// A token's rights replace the anonymous ones: observations they do not
    /// allow end, so that no event about a key the token may not read arrives.
    func endObservationsNoLongerAllowed() {
        guard let readable = rights?.read else { return }
        let observed = output.observations
        for key in observed.keys where !readable.allows(key.text) {
            unobserve(.key(key.text))
        }
        for prefix in observed.prefixes where !readable.allowsEveryKey(withPrefix: prefix.text) {
            unobserve(.prefix(prefix.text))
        }
    }
}
