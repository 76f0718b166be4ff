import ObservatoryWire

/// A `batch` that `StoreState` checked and has not applied yet: the planned
/// write of each operation that changes a key (all at one revision), the
/// `requestId` it remembers, and its reply.
///
/// Storage holds it as one record (`records`), so that recovery reads back all
/// of its changes or none.
struct PlannedBatch {
    /// The changes, in the order of the batch's operations, and the writes that only
    /// restart an expiring key's clock (an equal value set with `ttl`); empty when it
    /// changes nothing.
    let writes: [PlannedWrite]
    /// The batch to remember under its `requestId`, if it carried one and is not a duplicate.
    let applied: AppliedWrite?
    /// The reply's fields.
    let payload: ReplyPayload

    /// A batch that changes nothing and remembers nothing: a duplicate's answer.
    init(answer payload: ReplyPayload) {
        self.init(writes: [], applied: nil, payload: payload)
    }

    init(writes: [PlannedWrite], applied: AppliedWrite?, payload: ReplyPayload) {
        self.writes = writes
        self.applied = applied
        self.payload = payload
    }

    /// The revision its changes take, if it makes any.
    var revision: Int64? {
        writes.lazy.compactMap(\.change).first?.version
    }

    /// Whether storage has anything to hold for it.
    var needsPersisting: Bool {
        !writes.isEmpty || applied != nil
    }

    /// What storage must hold before the batch is applied: its time (for
    /// `history`), then its changes and its `requestId` in one `batch` record (a
    /// lone `appliedWrite` when it changes nothing).
    ///
    /// The batch's changes are planned within the same moment; the time record
    /// stands before the batch record and dates all of them, so a batch record
    /// holds nothing but its changes and its `requestId`.
    var records: [StorageRecord] {
        let remembered = applied.map { [StorageRecord.appliedWrite($0)] } ?? []
        guard let revision else {
            // Restarted clocks alone take no revision: their expiry records, as single writes have them.
            return writes.flatMap(\.records) + remembered
        }
        let time = writes.lazy.compactMap(\.change).first.map { [StorageRecord.changeTime($0.at)] } ?? []
        let inner = writes.flatMap { write in
            write.records.filter {
                switch $0 {
                case .changeTime, .appliedWrite: false
                default: true
                }
            }
        }
        return time + [.batch(revision: revision, inner + remembered)]
    }
}
