import Dispatch
import Observatory
import ObservatoryWire

/// Observing targets for mirrors and watchers, and routing the events that follow.
extension ObservatoryClient {
    // MARK: Observing

    /// Sends `observe` for every key of `mirrors` and every watcher target;
    /// applies each reply as it arrives (on the I/O thread, so before any
    /// later event), and calls `done` after the last reply.
    ///
    /// When `resuming`, each target that was observed before asks for the
    /// changes after the last revision it saw; a key resumes only if each of its
    /// mirrors already has a snapshot.
    func sendObserves(
        _ mirrors: [String: [any MirrorEndpoint]],
        watcherTargets: Set<Target>,
        on link: ServerLink,
        resuming: Bool = false,
        done: @escaping @Sendable () -> Void = {}
    ) {
        let total = mirrors.count + watcherTargets.count
        guard total > 0 else { return done() }
        let remaining = Locked(total)
        state.withLock { $0.machine.snapshotsRequested(mirrors.count) }
        let countDown: @Sendable () -> Void = {
            let isLast = remaining.withLock { count in
                count -= 1
                return count == 0
            }
            if isLast { done() }
        }
        for (key, keyMirrors) in mirrors {
            let target = Target.key(key)
            let canResume = resuming && keyMirrors.allSatisfy(\.hasSnapshot)
            let (resumePoint, slow) = state.withLock {
                (canResume ? $0.machine.resumePoint(for: target) : nil, $0.machine.slowPolicy(for: target))
            }
            send(.observe(target, from: resumePoint, slow: slow), on: link) { [weak self] result in
                self?.applyObserveReply(
                    result, target: target, mirrors: keyMirrors, link: link, resumePoint: resumePoint)
                self?.state.withLock { $0.machine.snapshotAnswered() }
                self?.stateChanged()
                countDown()
            }
        }
        for target in watcherTargets {
            let (resumePoint, slow) = state.withLock {
                (resuming ? $0.machine.resumePoint(for: target) : nil, $0.machine.slowPolicy(for: target))
            }
            send(.observe(target, from: resumePoint, slow: slow), on: link) { [weak self] result in
                self?.applyObserveReply(result, target: target, mirrors: [], link: link, resumePoint: resumePoint)
                countDown()
            }
        }
    }

    /// Takes an `observe` reply: records the target's revision, and either lets
    /// the mirrors wait for the replayed events (resumed) or gives them the
    /// snapshot, authored by a ``Reset`` when a resume was asked for and refused.
    func applyObserveReply(
        _ result: Result<ReceivedReply, ClientError>, target: Target, mirrors: [any MirrorEndpoint],
        link: ServerLink, resumePoint: ResumePoint?
    ) {
        guard case .success(let reply) = result else { return }
        do {
            guard case .observe(let values, let revision, let resumed) = try reply.payload(for: .observe) else {
                return
            }
            let reset = state.withLock {
                $0.machine.observed(
                    target, revision: revision, generation: link.generation, resumePoint: resumePoint,
                    resumed: resumed == true)
            }
            if resumed == true {
                for mirror in mirrors { mirror.resume(generation: link.generation) }
                return
            }
            guard case .key(let key) = target else { return }
            let entry = values.first { $0.key == key }
            let author = entry.map { entry in
                state.withLock { $0.machine.author(session: entry.session, name: entry.author) }
            }
            for mirror in mirrors {
                mirror.applySnapshot(entry, author: author, reset: reset, generation: link.generation)
            }
        } catch {
            report(.server(error))
        }
    }

    // MARK: Events

    /// An event arrived on `link`: it waits for the rest of its run, or ends the
    /// run before it, which is applied now (``ClientMachine/eventArrived(_:on:)``).
    func handle(_ event: Event, from link: ServerLink) {
        apply(run: state.withLock { $0.machine.eventArrived(event, on: link) }, from: link)
    }

    /// The socket of `link` has nothing more to read for now: a run that cannot
    /// go on now is applied (``ClientMachine/readEnded(on:midFrame:)``).
    func readEnded(on link: ServerLink, midFrame: Bool) {
        apply(run: state.withLock { $0.machine.readEnded(on: link, midFrame: midFrame) }, from: link)
    }

    /// Applies one run of events (one revision's changes: a batch, or a single
    /// change): routes each to the mirrors of its key and the matching watchers,
    /// and carries out the mirrors' deliveries in one block on the delivery
    /// queue, so that every mirror holds the run's values before any observer
    /// of any of them runs.
    func apply(run events: [Event], from link: ServerLink) {
        guard !events.isEmpty else { return }
        var deliveries: [MirrorDelivery] = []
        for event in events {
            let key: String
            let session: String
            let name: String
            let old: JSONValue?
            let new: JSONValue?
            let version: Int64
            switch event {
            case .update(let eventKey, let eventOld, let eventNew, let eventVersion, let author, let eventSession, _, _):
                (key, old, new, version, name, session) = (
                    eventKey, eventOld, eventNew, eventVersion, author, eventSession
                )
            case .delete(let eventKey, let eventOld, let eventVersion, let author, let eventSession, _):
                (key, old, new, version, name, session) = (
                    eventKey, eventOld, nil, eventVersion, author, eventSession
                )
            case .shutdown:
                continue
            }
            let (remoteAuthor, mirrors, watchers) = state.withLock {
                $0.machine.route(key: key, version: version, session: session, name: name, generation: link.generation)
            }
            for mirror in mirrors {
                deliveries.append(mirror.applyEvent(event, author: remoteAuthor, generation: link.generation))
            }
            let change = RemoteChange(
                key: key, old: old, new: new, version: version, author: remoteAuthor, event: event)
            for watcher in watchers {
                watcher.deliver(change)
            }
        }
        guard !deliveries.isEmpty else { return }
        deliveryQueue.async { [deliveries] in
            let group = UpdateGroup()
            for delivery in deliveries { delivery.store(group) }
            group.deliver()
            for delivery in deliveries { delivery.finish() }
        }
    }
}
