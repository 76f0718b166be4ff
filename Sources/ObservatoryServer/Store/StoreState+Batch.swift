import ObservatoryWire

// The rules of a `batch` (docs/protocol.md, "Batches"): every operation is
// checked against the state before any is applied, and all its changes take one revision.
extension StoreState {
    /// Plans `operations` as one batch by `author`: each operation is planned
    /// against the state as it is now (a batch names each key at most once, so
    /// none sees another's change), and every change takes the next revision.
    ///
    /// - Throws: the error of the first operation that fails (`conflict`,
    ///   `not_found`, `limit_exceeded`), with its `index`; nothing is planned then.
    func planBatch(
        _ operations: [BatchOperation<EncodedJSON>], requestId: String?, by author: Author, now: Int64
    ) throws(WireError) -> PlannedBatch {
        if let requestId, let applied = appliedWrites.lookup(requestId, now: now) {
            return PlannedBatch(answer: applied.duplicatePayload)
        }
        var writes: [PlannedWrite] = []
        writes.reserveCapacity(operations.count)
        var results: [BatchResult] = []
        results.reserveCapacity(operations.count)
        var growth = BatchGrowth()
        // By index, not `enumerated()`: its (offset, element) pairs are copied and
        // destroyed through the runtime's generic tuple code, once per operation.
        for index in operations.indices {
            do throws(WireError) {
                results.append(try plan(operations[index], by: author, now: now, into: &writes, growth: &growth))
            } catch {
                throw error.at(index: index)
            }
        }
        let revision = writes.contains { $0.change != nil } ? self.revision + 1 : self.revision
        let applied = requestId.map {
            AppliedWrite(requestId: $0, appliedAt: now, reply: .batch(revision: revision, results: results))
        }
        return PlannedBatch(writes: writes, applied: applied, payload: .batch(revision: revision, results: results))
    }

    /// Makes a planned batch: each change in the order of its operations, then
    /// remembers its `requestId`.
    ///
    /// - Returns: the changes to announce, in that order, and the reply's fields.
    mutating func apply(_ batch: consuming PlannedBatch) -> (changes: [StoreChange], payload: ReplyPayload) {
        if let applied = batch.applied {
            remember(applied)
        }
        var changes: [StoreChange] = []
        changes.reserveCapacity(batch.writes.count)
        // By index: each plan is read in place, not copied out of the array.
        for index in batch.writes.indices {
            if let change = applyChange(batch.writes[index]) { changes.append(change) }
        }
        return (changes, batch.payload)
    }

    /// Plans one operation: appends its planned write to `writes` (none when it
    /// changes nothing), counted in `growth`, and returns its result. The plan
    /// goes straight into the array, never through an optional or a tuple.
    ///
    /// A `set` with `ttl` of an equal value changes nothing but restarts the key's
    /// clock: its planned write is kept (it takes no revision), with `changed:false`.
    private func plan(
        _ operation: BatchOperation<EncodedJSON>, by author: Author, now: Int64, into writes: inout [PlannedWrite],
        growth: inout BatchGrowth
    ) throws(WireError) -> BatchResult {
        switch operation {
        case .set(let key, let value, let ifVersion, let sessionBound, let ttl):
            let planned = try planSet(
                key, to: value, ifVersion: ifVersion, sessionBound: sessionBound, ttl: ttl, by: author,
                now: now)
            guard planned.change != nil else {
                let version = planned.replaced?.entry.version ?? 0
                if planned.restartsExpiry { try keep(planned, in: &writes, growth: &growth) }
                return BatchResult(key: key, version: version, changed: false)
            }
            try keep(planned, in: &writes, growth: &growth)
            return BatchResult(key: key, version: revision + 1, changed: true)
        case .delete(let key, let ifVersion):
            try keep(try planDelete(key, ifVersion: ifVersion, by: author), in: &writes, growth: &growth)
            return BatchResult(key: key, version: revision + 1)
        case .check(let key, let ifVersion):
            let current = entry(key)?.version ?? 0
            guard current == ifVersion else {
                throw WireError.conflict(key: key, expected: ifVersion, current: current)
            }
            return BatchResult(key: key, version: current)
        }
    }

    /// Counts `planned` in `growth` (which throws past a limit) and appends it to `writes`.
    private func keep(
        _ planned: consuming PlannedWrite, in writes: inout [PlannedWrite], growth: inout BatchGrowth
    ) throws(WireError) {
        try growth.add(planned, to: self)
        writes.append(planned)
    }
}

/// What the changes of a batch planned so far add to the store, so that the
/// key and byte limits hold for the batch as a whole, not for each change alone.
private struct BatchGrowth {
    private var createdKeys = 0
    private var bytes = 0

    /// Adds a planned change; throws `limit_exceeded` when it takes the batch past a limit.
    mutating func add(_ planned: borrowing PlannedWrite, to state: StoreState) throws(WireError) {
        if planned.replaced == nil, planned.stored != nil {
            createdKeys += 1
            if state.entries.count + createdKeys > state.maxKeys {
                throw WireError(
                    code: .limitExceeded,
                    message: "the batch would take the store past its maximum of \(state.maxKeys) keys; "
                        + "delete keys or raise limits.maxKeys")
            }
        }
        bytes += planned.byteChange
        if planned.byteChange > 0, state.bytes + bytes > state.maxBytes {
            throw WireError(
                code: .limitExceeded,
                message: "the batch would take the store past its maximum of \(state.maxBytes) bytes; "
                    + "delete keys, store smaller values or raise limits.maxStoreBytes")
        }
    }
}
