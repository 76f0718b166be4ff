import Observatory
import ObservatoryWire

/// The authoritative state that every session reads and writes: the values by
/// key, the one history of changes (revision and epoch), observation, resuming,
/// and the session-bound keys that end with their session.
///
/// Sessions and connections know the state only through this protocol. The local
/// implementation is `SharedStore` with its `Storage`; cluster mode (docs/protocol.md,
/// "Cluster mode") adds a second one that keeps a cache of etcd. A write is answered
/// in two steps, so an implementation that commits elsewhere fits: `apply` returns
/// the reply at once, or answers it later into the `ReplySlot` the session gave it
/// (it never blocks the calling event loop; the answer reaches the connection as
/// an input on its own event loop, see `ReplySlot`), and the connection sends it
/// only once its revision has passed the state's revision gate (`gate`), or
/// answers the write's error instead if the gate reports it lost (storage failed)
/// or the answer is an error (in a cluster, etcd never committed it: `unavailable`).
protocol SharedState: AnyObject, Sendable {
    /// The name of this history (docs/protocol.md's epoch).
    var epoch: String { get }
    /// The revision of the last change.
    var revision: Int64 { get }
    /// The revision gate: how far replies to writes and events may go out, which
    /// changes are lost, and where connections wait for a revision.
    var gate: RevisionGate { get }

    /// Applies one write as `author`, and announces its change to observers.
    ///
    /// Must not block: a write decided elsewhere returns `.pending(slot)` and
    /// answers into `slot` when the answer comes.
    ///
    /// - Returns: the reply's fields, now or later; the reply waits for `gate`.
    /// - Throws: `conflict`, `not_found`, `limit_exceeded`, or `internal` when the
    ///   change cannot be stored (it is then not made); an answer given later
    ///   carries these errors (and `unavailable`) instead.
    func apply(_ write: Write, by author: Author, answering slot: ReplySlot) throws(WireError) -> WriteReply

    /// Applies `operations` as one batch by `author` (docs/protocol.md,
    /// "Batches"): all or nothing, every change at one revision, announced to
    /// each observer as one run; `requestId` covers the whole batch. The session
    /// has checked its rights for each operation.
    ///
    /// - Returns: the `batch` reply's fields, now or later (into `slot`), as for `apply`.
    /// - Throws: the first failing operation's error with its `index`, or `internal`.
    func applyBatch(
        _ operations: [BatchOperation<EncodedJSON>], requestId: String?, by author: Author,
        answering slot: ReplySlot
    ) throws(WireError) -> WriteReply

    /// The entry of `key`, if it exists.
    func get(_ key: String) -> RawValueEntry?

    /// One page of the keys under `prefix` after `after` that `isIncluded` lets
    /// through, at most `limit`, and whether more follow.
    func list(
        prefix: String, after: String?, limit: Int, where isIncluded: (String) -> Bool
    ) -> (keys: [KeyVersion], more: Bool)

    /// The held changes `query` asks for whose keys `isIncluded` lets through,
    /// with at most `maxBytes` of events (at least one change), and the revision
    /// and horizon they were read at (docs/protocol.md, "History").
    func history(_ query: HistoryQuery, maxBytes: Int, where isIncluded: (String) -> Bool) -> HistoryPage

    /// Starts `observer` receiving the changes of `target` through `receive` (if
    /// `subscribe` says so) and, in the same step, takes its snapshot or, from a
    /// `resumePoint` the state can serve, the changes after it. `subscribe` runs
    /// in that step and receives the revision up to which the target's events are
    /// to be ignored: changes the snapshot or replay holds that may still be on
    /// their way to handlers (0 when none are).
    ///
    /// Must not block: a state that fetches the changes elsewhere (a cluster node
    /// reading etcd's history) returns a start with `pending` set to `slot`, and
    /// answers `resumed:true` and the replay, or the start's snapshot, into it later.
    func observe<Failure: Error>(
        _ target: Target, from resumePoint: ResumePoint?, by observer: some Observer, answering slot: ReplySlot,
        subscribe: (_ ignoringThrough: Int64) throws(Failure) -> Bool, receive: @escaping (StoreChange) -> Void
    ) throws(Failure) -> ObservationStart

    /// Stops `observer` receiving the changes of `key`.
    func stopObserving(key: String, by observer: some Observer)

    /// Stops `observer` receiving the changes under its prefixes.
    func stopObservingPrefixes(by observer: some Observer)

    /// Deletes the keys bound to `session`, each announced with reason `session_ended`.
    ///
    /// - Returns: how many were deleted, and the failure that stopped it early, if any.
    func endSession(_ session: String) -> (deleted: Int, failure: WireError?)

    /// Deletes the expiring keys due at `now` (milliseconds since 1970), at most
    /// `limit`, each announced with reason `expired`; a state whose expiry is
    /// decided elsewhere (a cluster's etcd leases) deletes none.
    ///
    /// - Returns: how many were deleted, and the failure that stopped it, if any.
    func expireDue(now: Int64, limit: Int) -> (expired: Int, failure: WireError?)

    /// Makes everything durable and releases what the state holds (files, a
    /// cluster's lease); the server calls it last when it stops.
    func close()

    /// Sets what runs when the state's view of the history lost continuity and
    /// was read again at a revision (a cluster node's watch that etcd compacted
    /// past): the server then closes its observers with `unavailable`, so they resume.
    func onViewLost(_ handler: @escaping @Sendable (Int64) -> Void)
}

extension SharedState {
    /// Never runs `handler`: a state that is the history itself cannot lose its view of it.
    func onViewLost(_ handler: @escaping @Sendable (Int64) -> Void) {}
}
