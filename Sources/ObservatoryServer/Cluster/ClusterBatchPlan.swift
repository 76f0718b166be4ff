import ObservatoryEtcd
import ObservatoryWire

/// One `batch` as one etcd transaction, planned against what the node believes
/// its keys hold (`current`), so that etcd, not the node's view, decides it.
///
/// Every key gets the compare of a single write (absent, or last changed at its
/// believed version); if they all hold, the success branch makes every change
/// of the batch in one revision (nothing when an operation fails or nothing
/// changes), and the reply follows from the plan. If one does not hold, the
/// failure branch reads every key (and the `requestId`'s record), and the batch
/// is planned again against what etcd returned: the first failing operation is
/// always found against a state etcd vouched for. The transaction is nested to
/// stay within etcd's default `--max-txn-ops` where it can
/// (`ClusterBoundedTransaction`): every changing operation takes two etcd
/// operations, so a flat one would take at most 64.
///
/// Only when the compares would not fit etcd's default limit (a batch of more
/// than 125 operations with a `requestId`), the last few unconditional `set`s
/// that create a key leave theirs out, as few as it takes: such a put is
/// last-writer-wins, so a write landing on its key between the plan and the
/// commit is simply overwritten at the batch's later revision; its room in the
/// key budget was reserved either way, its reply version and event are the
/// batch's revision, and it is not decided on the key's value. (Against a
/// concurrent create of the same value it writes again where it would have
/// answered `changed:false`.) Every other operation keeps its compare: an
/// `ifVersion`, a `check`, an equal value answered `changed:false`, a restarted
/// clock, a delete (its event and reply depend on the key being there), and a
/// `set` of an existing key (which a concurrent delete would turn into a create
/// outside the key budget).
///
/// A `set` with `ttl` is planned as a single one (`ClusterWritePlan`): its key
/// goes on the lease of the second it expires in (`expiryLeases`), and an equal
/// value with `ttl` restarts the clock with a put that keeps the key's version;
/// a key whose clock was restarted is compared on its `mod_revision`
/// (`currentRevisions`).
struct ClusterBatchPlan {
    /// What the reply is when the compares held.
    enum Outcome {
        /// The results, in operation order; `changes` tells which operations change
        /// a key (their version is the transaction's revision).
        case results([BatchResult], changes: [Bool])
        /// The batch fails with this error (with its `index`).
        case failure(WireError)
    }

    /// The transaction, nested to stay within etcd's default `--max-txn-ops`.
    let bounded: ClusterBoundedTransaction
    let outcome: Outcome
    /// The keys the batch creates (each needs room in the key budget).
    let creates: [String]
    /// Whether the batch takes a revision of its own: it changes a key or
    /// records its `requestId` (restarting clocks alone does not, as in local mode).
    private let takesRevision: Bool
    /// Whether the transaction fits etcd's default `--max-txn-ops`; when it does
    /// not, etcd with default settings refuses it before looking at any compare.
    let fits: Bool
    /// Whether the transaction writes anything when its compares hold (a change,
    /// or the record of a `requestId`): then it takes a revision of its own.
    let writes: Bool

    /// Plans `operations` by `author` against `current` (by key; a key missing
    /// there is believed absent; last put at `currentRevisions[key]`, else at
    /// its version); session-bound sets attach to `lease`, expiring ones to
    /// `expiryLeases[key]`, a `requestId`'s record to `requestLease`; expiries
    /// run from `now` (milliseconds since 1970).
    init(
        operations: [BatchOperation<EncodedJSON>], requestId: String?, author: Author, current: [String: RawValueEntry],
        currentRevisions: [String: Int64] = [:], layout: ClusterKeyLayout, lease: Int64, requestLease: Int64,
        expiryLeases: [String: Int64] = [:], now: Int64 = 0
    ) {
        var compares: [EtcdCompare] = []
        var success: [EtcdOperation] = []
        var results: [BatchResult] = []
        var changes: [Bool] = []
        var creates: [String] = []
        var failure: WireError?
        var unguarded: [Int] = []
        for (index, operation) in operations.enumerated() {
            let key = operation.key
            let entry = current[key]
            let valueKey = layout.valueKey(key)
            compares.append(
                entry.map { .unchanged(valueKey, since: currentRevisions[key] ?? $0.version) } ?? .absent(valueKey))
            guard failure == nil else { continue }
            let write: Write
            switch operation {
            case .check(_, let ifVersion):
                let version = entry?.version ?? 0
                if version != ifVersion {
                    failure = WireError.conflict(key: key, expected: ifVersion, current: version).at(index: index)
                }
                results.append(BatchResult(key: key, version: version))
                changes.append(false)
                continue
            case .set(_, let value, let ifVersion, let sessionBound, let ttl):
                write = .set(
                    key: key, value: value, ifVersion: ifVersion, sessionBound: sessionBound,
                    requestId: nil, ttl: ttl)
            case .delete(_, let ifVersion):
                write = .delete(key: key, ifVersion: ifVersion, requestId: nil)
            }
            let plan = ClusterWritePlan(
                write: write, author: author, current: entry, layout: layout, lease: lease,
                expiryLease: expiryLeases[key] ?? 0, now: now)
            switch plan.outcome {
            case .failure(let error):
                failure = error.at(index: index)
            case .answer(let payload):
                if plan.restartsExpiry { success += plan.transaction.success }
                results.append(BatchResult(key: key, version: payload.writtenVersion, changed: false))
                changes.append(false)
            case .change:
                success += plan.transaction.success
                results.append(BatchResult(key: key, version: 0, changed: operation.name == "set" ? true : nil))
                changes.append(true)
                if entry == nil { creates.append(key) }
                if entry == nil, case .set(_, _, nil, _, _) = operation { unguarded.append(index) }
            }
        }
        var failed = operations.map { EtcdOperation.range(.key(layout.valueKey($0.key))) }
        if let failure {
            outcome = .failure(failure)
            success = []
            creates = []
        } else {
            outcome = .results(results, changes: changes)
            if let requestId {
                let requestKey = layout.requestKey(requestId)
                compares.append(.absent(requestKey))
                failed.append(.range(.key(requestKey)))
                success.append(
                    .put(
                        key: requestKey, value: ClusterRequestRecord.encodeBatch(results, changes: changes),
                        lease: requestLease))
            }
        }
        compares = Self.withinLimit(compares, leavingOut: unguarded, success: success.count, failure: failed.count)
        fits = ClusterBoundedTransaction.fits(compares: compares.count, success: success.count, failure: failed.count)
        bounded = ClusterBoundedTransaction(compares: compares, success: success, failure: failed)
        writes = !success.isEmpty
        self.creates = creates
        takesRevision = failure == nil && (changes.contains(true) || requestId != nil)
    }

    /// `compares` without as few of those at `optional` (the last first) as it
    /// takes to fit etcd's default `--max-txn-ops`; all of them when they fit
    /// already, or when the transaction cannot fit even without them.
    private static func withinLimit(_ compares: [EtcdCompare], leavingOut optional: [Int], success: Int, failure: Int)
        -> [EtcdCompare]
    {
        guard !ClusterBoundedTransaction.fits(compares: compares.count, success: success, failure: failure) else {
            return compares
        }
        for count in stride(from: 1, through: optional.count, by: 1) {
            guard ClusterBoundedTransaction.fits(compares: compares.count - count, success: success, failure: failure)
            else { continue }
            let left = Set(optional.suffix(count))
            return compares.enumerated().filter { !left.contains($0.offset) }.map(\.element)
        }
        return compares
    }

    /// The reply once etcd committed the transaction at `revision`; a batch that
    /// writes nothing, or only restarts clocks, answers `current` as its revision.
    func reply(committedAt revision: Int64, current: Int64) -> Result<ReplyPayload, WireError> {
        switch outcome {
        case .failure(let error):
            return .failure(error)
        case .results(let results, let changes):
            var filled = results
            for index in filled.indices where changes[index] { filled[index].version = revision }
            return .success(.batch(revision: takesRevision ? revision : current, results: filled))
        }
    }

    /// The transaction to send to etcd.
    var transaction: EtcdTransaction {
        bounded.transaction
    }

    /// etcd's answer to `transaction` as if it had one level: whether every
    /// compare held, and the reads of the failure branch in their order.
    func outcome(of result: EtcdTransactionResult) -> EtcdTransactionResult {
        bounded.outcome(of: result)
    }

    /// What each key holds according to a failed transaction's reads, and its
    /// `mod_revision`, to plan again with.
    static func current(from result: EtcdTransactionResult, keys: [String]) -> (
        entries: [String: RawValueEntry], revisions: [String: Int64]
    ) {
        var current: [String: RawValueEntry] = [:]
        var revisions: [String: Int64] = [:]
        for (index, key) in keys.enumerated() where index < result.responses.count {
            let single = EtcdTransactionResult(
                header: result.header, succeeded: false, responses: [result.responses[index]])
            let read = ClusterWritePlan.current(from: single, key: key)
            (current[key], revisions[key]) = (read?.entry, read?.revision)
        }
        return (current, revisions)
    }

    /// The reply to a batch already applied under the same `requestId`, read in
    /// the failure branch after the keys; `nil` when there is none.
    static func duplicateReply(from result: EtcdTransactionResult, keyCount: Int) -> ReplyPayload? {
        guard result.responses.count > keyCount, case .range(let range) = result.responses[keyCount],
            let stored = range.keyValues.first
        else { return nil }
        return ClusterRequestRecord.duplicateReply(stored)
    }
}
