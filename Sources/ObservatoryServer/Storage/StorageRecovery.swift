import ObservatoryWire

/// Reads a data directory back into a store: the newest snapshot, then every log
/// after it, checking that the files belong to one history and that revisions
/// follow each other without a gap.
///
/// A torn tail (the last log cut short by a crash in the middle of a write) is
/// cut at the last whole record, with a warning naming the file and offset. Any
/// other damage stops the start with an error naming the file, the offset and
/// what to do: acknowledged changes are never dropped silently.
///
/// With `repair: false` (for `observatoryd --check`) nothing is changed on disk:
/// torn tails are reported, not cut, and leftovers are not removed.
struct StorageRecovery {
    let directory: DataDirectory
    let repair: Bool
    /// How many recent changes to keep for resuming observers.
    var historyChanges = ServerLimits().historyChanges
    /// How many remembered `requestId`s to keep at most.
    var maxRequestIds = ServerLimits().maxRequestIds
    /// The wall time remembered writes expire against, in milliseconds since 1970.
    var now = AppliedWrites.wallMilliseconds()

    /// Reads the directory.
    ///
    /// - Throws: `StorageError` with code `damaged` for damage a crash cannot
    ///   explain, or `system` when a file cannot be read.
    func recover() throws(StorageError) -> RecoveredState {
        let listing = try directory.listing()
        var state = RecoveredState(
            epoch: RecoveredState.newEpoch(), historyChanges: historyChanges, maxRequestIds: maxRequestIds)
        try removeLeftovers(listing.temporary, state: &state)
        let snapshot = listing.snapshots.last
        if let snapshot {
            try load(snapshot: snapshot, into: &state)
        }
        let live = listing.logs.filter { $0 >= (snapshot ?? 0) }
        for (index, sequence) in live.enumerated() {
            try replay(log: sequence, isLast: index == live.count - 1, into: &state)
        }
        let obsolete =
            listing.snapshots.dropLast().map(DataDirectory.snapshotName)
            + listing.logs.filter { $0 < (snapshot ?? 0) }.map(DataDirectory.logName)
        try removeLeftovers(obsolete, state: &state)
        state.nextSequence = max(listing.logs.last ?? 0, listing.snapshots.last ?? 0) + 1
        state.snapshotSequence = snapshot
        return state
    }

    private func removeLeftovers(_ names: [String], state: inout RecoveredState) throws(StorageError) {
        guard repair, !names.isEmpty else { return }
        for name in names {
            try directory.files.remove(directory.path(of: name))
        }
        state.warnings.append(
            "removed files left by an interrupted or finished compaction: \(names.joined(separator: ", "))")
    }

    // MARK: Snapshot

    private func load(snapshot sequence: Int64, into state: inout RecoveredState) throws(StorageError) {
        let name = DataDirectory.snapshotName(sequence)
        let bytes = try directory.files.read(directory.path(of: name))
        var report = RecoveredState.FileReport(name: name, bytes: bytes.count, records: 0)
        try Self.scanning(bytes) { raw throws(StorageError) in
            var scanner = RecordScanner(raw)
            let header = try readHeader(&scanner, expecting: .snapshot, file: name, state: &state)
            state.revision = header.revision
            state.entries.reserveCapacity(bytes.count / 96)
            var ended = false
            while let item = scanner.next() {
                report.records += 1
                switch item.record {
                case .set(let entry) where !ended:
                    state.entries[entry.key] = entry
                    state.snapshotKeys.append(entry.key)
                case .history(let event) where !ended:
                    state.remember(event)
                case .changeTime(let at) where !ended:
                    state.changeTime = at
                case .appliedWrite(let write) where !ended:
                    state.appliedWrites.remember(write, now: now)
                case .snapshotEnd(let count) where !ended && count == state.entries.count:
                    ended = true
                default:
                    throw damaged(name, at: item.offset, "a record that does not belong in a snapshot here")
                }
            }
            guard scanner.ending == .clean, ended else {
                let offset = scanner.offset
                throw damaged(
                    name, at: offset,
                    "the snapshot is incomplete (\(scanner.ending.map(String.init(describing:)) ?? "no end record")); "
                        + "snapshots are renamed into place only once whole and flushed, so this is damage on disk")
            }
        }
        report.revisions = state.revision...state.revision
        state.files.append(report)
    }

    // MARK: Logs

    private func replay(log sequence: Int64, isLast: Bool, into state: inout RecoveredState) throws(StorageError) {
        let name = DataDirectory.logName(sequence)
        let path = directory.path(of: name)
        let bytes = try directory.files.read(path)
        var report = RecoveredState.FileReport(name: name, bytes: bytes.count, records: 0)
        let cut: Int? = try Self.scanning(bytes) { raw throws(StorageError) -> Int? in
            var scanner = RecordScanner(raw)
            let header = try readHeader(&scanner, expecting: .log, file: name, state: &state)
            guard header.revision == state.revision else {
                throw damaged(
                    name, at: 0,
                    "this log continues revision \(header.revision) but the files before it end at \(state.revision): "
                        + "a data file is missing")
            }
            report.records = 1
            while let item = scanner.next() {
                report.records += 1
                try apply(item, file: name, to: &state, report: &report)
            }
            return try tornTailCut(scanner, file: name, isLast: isLast, report: &report)
        }
        if let cut, repair {
            let descriptor = try directory.files.open(path, truncate: false)
            defer { directory.files.close(descriptor) }
            try directory.files.truncate(descriptor, to: cut, path: path)
            try directory.files.synchronize(descriptor, path: path)
        }
        state.logBytes += cut ?? bytes.count
        state.files.append(report)
    }

    private func apply(
        _ item: RecordScanner.Item, file: String, to state: inout RecoveredState,
        report: inout RecoveredState.FileReport
    ) throws(StorageError) {
        if let revision = item.record.revision {
            guard revision == state.revision + 1 else {
                throw damaged(
                    file, at: item.offset,
                    "revision \(revision) follows \(state.revision): changes are missing or out of order")
            }
            state.revision = revision
            state.replayedChanges += 1
            report.revisions = (report.revisions?.lowerBound ?? revision)...revision
        }
        try replay(item.record, at: item.offset, file: file, to: &state)
    }

    /// Makes one record's change (or each change of a batch record) in `state`.
    private func replay(
        _ record: StorageRecord, at offset: Int, file: String, to state: inout RecoveredState
    ) throws(StorageError) {
        switch record {
        case .batch(_, let records):
            for record in records { try replay(record, at: offset, file: file, to: &state) }
        case .set(let entry):
            let previous = state.entries[entry.key]
            if previous == nil { state.createdKeys.append(entry.key) }
            state.entries[entry.key] = entry
            state.remember(
                .update(
                    key: entry.key, old: previous?.value, new: entry.value, version: entry.version,
                    author: entry.author,
                    session: entry.session, sessionBound: entry.sessionBound, ttl: entry.expiry?.seconds))
        case .expiry(let key, let expiry):
            guard state.entries[key] != nil else {
                throw damaged(file, at: offset, "an expiry of \"\(key)\", which does not exist at that point")
            }
            state.entries[key]?.expiry = expiry
        case .delete(let key, let version, let author, let session, let sessionEnded, let expired):
            guard let previous = state.entries[key] else {
                throw damaged(file, at: offset, "a delete of \"\(key)\", which does not exist at that point")
            }
            state.entries[key] = nil
            state.logsDeletedKeys = true
            state.remember(
                .delete(
                    key: key, old: previous.value, version: version, author: author, session: session,
                    reason: sessionEnded ? RawEvent.sessionEnded : expired ? RawEvent.expired : nil))
        case .appliedWrite(let write):
            state.appliedWrites.remember(write, now: now)
        case .sessionReservation(let number):
            state.sessionReservation = max(state.sessionReservation, number)
        case .changeTime(let at):
            state.changeTime = at
        case .header, .snapshotEnd, .history:
            throw damaged(file, at: offset, "a record that does not belong in a log")
        }
    }

    /// Where to cut a torn tail, or `nil` when the log ended cleanly.
    private func tornTailCut(
        _ scanner: RecordScanner, file: String, isLast: Bool, report: inout RecoveredState.FileReport
    ) throws(StorageError) -> Int? {
        switch scanner.ending {
        case .clean, nil:
            return nil
        case .damaged(let offset, let reason):
            throw damaged(file, at: offset, reason + ", with more data after it")
        case .torn(let offset, let reason):
            guard isLast else {
                throw damaged(
                    file, at: offset,
                    reason + " at the end of a log that later logs follow; this happens only after a machine "
                        + "crash with fsync everysec: the changes after it are lost")
            }
            report.tornTail = "offset \(offset): \(reason)"
            return offset
        }
    }

    // MARK: Shared

    /// Runs `body` on the bytes of a file read whole.
    private static func scanning<Result>(
        _ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(StorageError) -> Result
    ) throws(StorageError) -> Result {
        let outcome = bytes.withUnsafeBytes { raw in Swift.Result { () throws(StorageError) in try body(raw) } }
        return try outcome.get()
    }

    private func readHeader(
        _ scanner: inout RecordScanner, expecting kind: StorageHeader.FileKind, file: String,
        state: inout RecoveredState
    ) throws(StorageError) -> StorageHeader {
        guard let first = scanner.next(), case .header(let header) = first.record, header.kind == kind else {
            throw damaged(
                file, at: 0, "the file does not start with a \(kind) header; it is not an Observatory data file")
        }
        if state.isNew {
            state.epoch = header.epoch
            state.isNew = false
        } else if header.epoch != state.epoch {
            throw damaged(
                file, at: 0,
                "it belongs to history \(header.epoch), the files before it to \(state.epoch): "
                    + "files of two data directories were mixed")
        }
        state.sessionReservation = max(state.sessionReservation, header.sessionReservation)
        return header
    }

    private func damaged(_ file: String, at offset: Int, _ reason: String) -> StorageError {
        let path = directory.path(of: file)
        return StorageError(
            code: .damaged,
            message:
                "\(path) is damaged at offset \(offset): \(reason). Nothing was changed or dropped. See `observatoryd --check --data \(directory.path)`; restore the directory from a "
                + "backup, or keep a copy and cut the file at that offset (`truncate -s \(offset) \(path)`) to start "
                + "without the changes stored after it.")
    }
}
