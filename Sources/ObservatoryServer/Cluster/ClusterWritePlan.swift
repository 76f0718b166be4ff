import ObservatoryEtcd
import ObservatoryWire

/// One write as an etcd transaction, planned against what the node believes the
/// key holds (`current`), so that etcd, not the node's view, decides it.
///
/// The transaction's one compare says the key is still as believed: absent, or
/// last changed at `current.version`. If it holds, the success branch makes the
/// write (or nothing, for a conflict, a missing key or an equal value) and the
/// reply follows from the plan; if not, the failure branch reads the key, and the
/// write is planned again against what etcd returned.
///
/// - `ifVersion` is a compare on `mod_revision` (versions are etcd revisions).
/// - A set stores a `ClusterEnvelope` with the author, attached to the session's
///   lease when session-bound; a create also removes the key's deletion marker
///   if the node knows of one (an existing key has none, so a set of one is a
///   single put).
/// - A delete writes the deletion marker with its author and deletes the value,
///   in one revision.
/// - A set with `ttl` stores the expiry in the envelope and attaches the value
///   to `expiryLease` (one lease per expiry second, `ClusterExpiryLeases`), or
///   to the session's lease when session-bound (its node deletes it at its
///   time). An equal value set with `ttl` on an expiring key is put again with
///   its version kept (`restartsExpiry`): the reply says `changed:false`.
/// - The compare is on `currentRevision`, etcd's `mod_revision` of the key,
///   which a restart of its clock moves on while its version stays.
struct ClusterWritePlan {
    /// What the reply is when the compare held.
    enum Outcome: Equatable {
        /// The write changes the key: the reply takes the transaction's revision.
        case change
        /// The write changes nothing: this is the reply.
        case answer(ReplyPayload)
        /// The write fails with this error.
        case failure(WireError)
    }

    /// The transaction to run.
    let transaction: EtcdTransaction
    /// The reply when the transaction succeeds.
    let outcome: Outcome
    /// Whether the write changes nothing but restarts an expiring key's clock:
    /// its reply waits for the cache to apply the put like a change's.
    let restartsExpiry: Bool
    private let write: Write

    /// Plans `write` by `author` against `current` (`nil`: the key is believed
    /// absent, last put at `currentRevision`, `current.version` when not given),
    /// under `layout`; a session-bound set attaches its value to `lease`, an
    /// expiring one to `expiryLease`; an expiry runs from `now` (milliseconds since 1970).
    ///
    /// A create removes the key's deletion marker when `deletionMarker` says
    /// there may be one (the node's watch saw it; without it the create is one put).
    ///
    /// A write with a `requestId` also compares that no record of it exists, and
    /// writes one (on `requestLease`) when it is applied; the failure branch then
    /// reads the record too (`duplicateReply(from:)`).
    init(
        write: Write, author: Author, current: RawValueEntry?, currentRevision: Int64? = nil,
        layout: ClusterKeyLayout, lease: Int64 = 0, requestLease: Int64 = 0, expiryLease: Int64 = 0, now: Int64 = 0,
        deletionMarker: Bool = true
    ) {
        self.write = write
        let key: String
        let requestId: String?
        switch write {
        case .set(let name, _, _, _, let id, _), .delete(let name, _, let id): (key, requestId) = (name, id)
        }
        let valueKey = layout.valueKey(key)
        var compares: [EtcdCompare] = [
            current.map { .unchanged(valueKey, since: currentRevision ?? $0.version) } ?? .absent(valueKey)
        ]
        let leases = (session: lease, expiry: expiryLease)
        var (operations, outcome) = Self.plan(
            write, author: author, current: current, layout: layout, leases: leases, now: now,
            deletionMarker: deletionMarker)
        restartsExpiry = !operations.isEmpty && outcome != .change
        var failure: [EtcdOperation] = [.range(.key(valueKey))]
        if let requestId {
            let requestKey = layout.requestKey(requestId)
            compares.append(.absent(requestKey))
            failure.append(.range(.key(requestKey)))
            let reply: ReplyPayload? =
                switch outcome {
                case .change: try? Self.reply(to: write, outcome: outcome, committedAt: 0).get()
                case .answer(let payload): payload
                case .failure: nil
                }
            if let reply, let record = ClusterRequestRecord.encode(reply, isChange: outcome == .change) {
                operations.append(.put(key: requestKey, value: record, lease: requestLease))
            }
        }
        transaction = EtcdTransaction(compares: compares, success: operations, failure: failure)
        self.outcome = outcome
    }

    /// The reply to a write already applied under the same `requestId`, from a
    /// failed transaction's read of its record; `nil` when there is none.
    static func duplicateReply(from result: EtcdTransactionResult) -> ReplyPayload? {
        guard result.responses.count > 1, case .range(let range) = result.responses[1],
            let stored = range.keyValues.first
        else { return nil }
        return ClusterRequestRecord.duplicateReply(stored)
    }

    /// The reply once etcd committed the transaction at `revision`.
    func reply(committedAt revision: Int64) -> Result<ReplyPayload, WireError> {
        Self.reply(to: write, outcome: outcome, committedAt: revision)
    }

    private static func reply(to write: Write, outcome: Outcome, committedAt revision: Int64) -> Result<
        ReplyPayload, WireError
    > {
        switch outcome {
        case .failure(let error): return .failure(error)
        case .answer(let payload): return .success(payload)
        case .change:
            switch write {
            case .set(let key, _, _, _, _, _): return .success(.set(key: key, version: revision, changed: true))
            case .delete(let key, _, _): return .success(.delete(key: key, version: revision))
            }
        }
    }

    /// What the key holds according to a failed transaction's read, and its
    /// `mod_revision`, to plan again with.
    static func current(from result: EtcdTransactionResult, key: String) -> (entry: RawValueEntry, revision: Int64)? {
        guard case .range(let range)? = result.responses.first, let stored = range.keyValues.first else { return nil }
        // A value that is not an envelope is taken as a value nobody known wrote.
        let envelope =
            ClusterEnvelope.decode(stored.value)
            ?? ClusterEnvelope(value: .null, author: Author(name: "etcd", session: ""))
        let entry =
            envelope.entry(key: key, version: stored.modRevision)
            ?? RawValueEntry(key: key, value: .null, version: stored.modRevision, author: "etcd", session: "")
        return (entry, stored.modRevision)
    }

    private static func plan(
        _ write: Write, author: Author, current: RawValueEntry?, layout: ClusterKeyLayout,
        leases: (session: Int64, expiry: Int64), now: Int64, deletionMarker: Bool
    ) -> ([EtcdOperation], Outcome) {
        let currentVersion = current?.version ?? 0
        switch write {
        case .set(let key, let value, let ifVersion, let sessionBound, _, let ttl):
            if let ifVersion, ifVersion != currentVersion {
                return ([], .failure(.conflict(key: key, expected: ifVersion, current: currentVersion)))
            }
            let expiry = ttl.map { KeyExpiry(seconds: $0, after: now, by: author) }
            let lease = sessionBound ? leases.session : expiry == nil ? 0 : leases.expiry
            if let current, current.value == value, current.sessionBound == sessionBound,
                (current.expiry == nil) == (expiry == nil), !sessionBound || current.session == author.session
            {
                let answer = Outcome.answer(.set(key: key, version: current.version, changed: false))
                guard expiry != nil else { return ([], answer) }
                // The same value again, from now on expiring at the new time, in the same version.
                let restarted = ClusterEnvelope(
                    value: value, author: Author(name: current.author, session: current.session),
                    sessionBound: sessionBound, expiry: expiry, version: current.version)
                return ([.put(key: layout.valueKey(key), value: restarted.encoded(), lease: lease)], answer)
            }
            let envelope = ClusterEnvelope(
                value: value, author: author, sessionBound: sessionBound, expiry: expiry, at: StoreChange.now())
            let put = EtcdOperation.put(key: layout.valueKey(key), value: envelope.encoded(), lease: lease)
            // A key that exists has no deletion marker: the set that created it removed it, and a
            // marker is only written with the key's delete. The compare holds only if it still exists.
            // A marker left behind by a create that did not know of it names no delete: a delete's
            // author is the marker written in the delete's own revision (`ClusterEventMapper`).
            guard current == nil, deletionMarker else { return ([put], .change) }
            return ([put, .deleteRange(.key(layout.deletionKey(key)))], .change)
        case .delete(let key, let ifVersion, _):
            guard current != nil else {
                return ([], .failure(ifVersion == nil ? .notFound(key: key) : .conflictDeletingMissing(key: key)))
            }
            if let ifVersion, ifVersion != currentVersion {
                return ([], .failure(.conflict(key: key, expected: ifVersion, current: currentVersion)))
            }
            let marker = ClusterEnvelope(value: nil, author: author, at: StoreChange.now())
            let operations: [EtcdOperation] = [
                .put(key: layout.deletionKey(key), value: marker.encoded()),
                .deleteRange(.key(layout.valueKey(key))),
            ]
            return (operations, .change)
        }
    }
}
