import Observatory
import ObservatoryWire

// Observing: an observation starts under the store's lock, in the step that
// takes its snapshot or replay; its events come from the store's sender.
extension SharedStore {
    /// What an `observe` found: a snapshot, or the changes to replay after a resume point.
    public typealias Observation = ObservationStart

    /// Starts `observer` receiving the later changes of `target` through
    /// `receive` (if `subscribe` says so) and, in the same step, takes its snapshot,
    /// or, with a `resumePoint` the store can serve, the changes after it.
    ///
    /// For a key, `receive` gets that key's changes; for a prefix, it gets every
    /// change and is expected to filter (one prefix subscription per observer is
    /// enough for all its prefixes). `subscribe` runs under the store's lock, so an
    /// observer can add the target to what it filters by in the same step: no
    /// change is lost or sent twice between the snapshot or replay and the events.
    /// It returns `false` when the observer already receives the target's changes.
    ///
    /// Changes decided before this step may still be on their way to handlers
    /// (another thread sends them, `DeliveryQueue`): `subscribe` receives the
    /// revision up to which the target's events are then to be ignored, since the
    /// snapshot or replay holds them (0 when nothing is on its way). A new
    /// subscription ignores them here already.
    ///
    /// The store resumes when the resume point's epoch (if given) is this store's
    /// and its history holds every change after the point's revision.
    public func observe<Failure: Error>(
        _ target: Target,
        from resumePoint: ResumePoint? = nil,
        by observer: some Observer,
        subscribe: (_ ignoringThrough: Int64) throws(Failure) -> Bool,
        receive: @escaping (StoreChange) -> Void
    ) throws(Failure) -> Observation {
        // Registered and captured in one step under the lock (no change falls between
        // them); a prefix's snapshot is read from a copy after the lock is released.
        let (captured, revision) = try whenAllowed(.read) { guarded throws(Failure) in
            let ignoredThrough = guarded.deliveries.isSending ? guarded.data.revision : 0
            if try subscribe(ignoredThrough) {
                let receive = Self.ignoring(through: ignoredThrough, receive)
                switch target {
                case .key(let key):
                    let feedKey = StoreKey(key)
                    var feed = guarded.keyFeeds[feedKey] ?? KeyFeed()
                    feed.observerCount += 1
                    observer.observe(feed.messenger, receive: receive)
                    guarded.keyFeeds[feedKey] = feed
                case .prefix:
                    observer.observe(everyChange, receive: receive)
                }
            }
            let revision = guarded.data.revision
            if let resumePoint, resumePoint.epoch.map({ $0 == epoch }) ?? true,
                let replay = guarded.history.changes(of: target, after: resumePoint.revision)
            {
                return (Captured.replay(replay), revision)
            }
            let captured: Captured =
                switch target {
                case .key(let key): .entry(guarded.data.entry(key))
                case .prefix(let prefix): .view(guarded.data.view, prefix: prefix)
                }
            return (captured, revision)
        }
        switch captured {
        case .entry(let entry): return Observation(values: entry.map { [$0] } ?? [], revision: revision)
        case .view(let view, let prefix):
            return Observation(values: view.entries(withPrefix: prefix), revision: revision)
        case .replay(let changes):
            return Observation(values: [], revision: revision, replay: changes.map { $0.encoded() })
        }
    }

    /// `receive`, ignoring the changes up to `revision` (none when it is 0).
    private static func ignoring(
        through revision: Int64, _ receive: @escaping (StoreChange) -> Void
    ) -> (StoreChange) -> Void {
        guard revision > 0 else { return receive }
        return { change in
            if change.version > revision { receive(change) }
        }
    }

    /// What `observe` takes under the lock: a key's entry, or a copy to read a prefix from.
    private enum Captured {
        case entry(RawValueEntry?)
        case view(StoreView, prefix: String)
        case replay([StoreChange])
    }

    /// Stops `observer` receiving the changes of `key`.
    public func stopObserving(key: String, by observer: some Observer) {
        guarded.withLock { guarded in
            let feedKey = StoreKey(key)
            guard var feed = guarded.keyFeeds[feedKey] else { return }
            observer.stopObserving(feed.messenger)
            feed.observerCount -= 1
            guarded.keyFeeds[feedKey] = feed.observerCount > 0 ? feed : nil
        }
    }

    /// Stops `observer` receiving every change (its prefix subscription).
    public func stopObservingPrefixes(by observer: some Observer) {
        observer.stopObserving(everyChange)
    }

    /// The number of keys that currently have a feed (at least one key observer).
    var keyFeedCount: Int {
        guarded.withLock { $0.keyFeeds.count }
    }
}
